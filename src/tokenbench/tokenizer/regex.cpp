#include "tokenbench/tokenizer/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdexcept>

namespace tokenbench::tokenizer {
namespace {

// Unicode White_Space, as class members.
constexpr std::string_view kWhiteSpaceMembers =
    "\\t-\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}"
    "\\x{205F}\\x{3000}";

std::string translate_whitespace(std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size() + 64);
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char e = pattern[i + 1];
      ++i;
      if (e == 's') {
        if (in_class) {
          out.append(kWhiteSpaceMembers);
        } else {
          out.append("[").append(kWhiteSpaceMembers).append("]");
        }
      } else if (e == 'S' && !in_class) {
        out.append("[^").append(kWhiteSpaceMembers).append("]");
      } else {
        out.push_back(c);
        out.push_back(e);
      }
      continue;
    }
    if (!in_class && c == '[') {
      in_class = true;
      out.push_back(c);
      // A ']' (or '^]') right after the opening bracket is a member, not the end.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out.push_back(pattern[++i]);
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out.push_back(pattern[++i]);
      continue;
    }
    if (in_class && c == ']') in_class = false;
    out.push_back(c);
  }
  return out;
}

struct ThreadMatchState {
  pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
  pcre2_match_context* context = nullptr;
  pcre2_jit_stack* stack = nullptr;
  ~ThreadMatchState() {
    if (context != nullptr) pcre2_match_context_free(context);
    if (stack != nullptr) pcre2_jit_stack_free(stack);
    pcre2_match_data_free(data);
  }
  // A larger JIT stack, made the first time a match on this thread runs out of the default one.
  pcre2_match_context* big_stack_context() {
    if (context == nullptr) {
      context = pcre2_match_context_create(nullptr);
      stack = pcre2_jit_stack_create(64 * 1024, 8 * 1024 * 1024, nullptr);
      pcre2_jit_stack_assign(context, nullptr, stack);
    }
    return context;
  }
};

ThreadMatchState& thread_match_state() {
  thread_local ThreadMatchState state;
  return state;
}

}  // namespace

Regex::Regex(std::string_view pattern) : pattern_(pattern) {
  const std::string translated = translate_whitespace(pattern);
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                    PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK, &error, &offset, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof(message));
    throw std::invalid_argument("bad regex /" + pattern_ +
                                "/: " + reinterpret_cast<const char*>(message) + " at offset " +
                                std::to_string(offset));
  }
  jit_ = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
  code_ = code;
}

Regex::~Regex() { pcre2_code_free(static_cast<pcre2_code*>(code_)); }

bool Regex::find(std::string_view text, std::size_t from, std::size_t& start,
                 std::size_t& end) const {
  auto* code = static_cast<pcre2_code*>(code_);
  ThreadMatchState& state = thread_match_state();
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  int rc =
      jit_ ? pcre2_jit_match(code, subject, text.size(), from, 0, state.data, nullptr)
           : pcre2_match(code, subject, text.size(), from, PCRE2_NO_UTF_CHECK, state.data, nullptr);
  if (rc == PCRE2_ERROR_JIT_STACKLIMIT) {
    rc =
        pcre2_jit_match(code, subject, text.size(), from, 0, state.data, state.big_stack_context());
  }
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  if (rc < 0) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(rc, message, sizeof(message));
    throw std::runtime_error("regex /" + pattern_ +
                             "/ failed: " + reinterpret_cast<const char*>(message));
  }
  const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(state.data);
  start = ovector[0];
  end = ovector[1];
  return true;
}

std::string regex_escape(std::string_view literal) {
  std::string out;
  out.reserve(literal.size() + 8);
  for (const char c : literal) {
    if (std::string_view("\\^$.|?*+()[]{}-/#").find(c) != std::string_view::npos) {
      out.push_back('\\');
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace tokenbench::tokenizer
