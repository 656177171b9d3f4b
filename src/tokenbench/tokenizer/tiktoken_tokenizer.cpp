#include "tokenbench/tokenizer/tiktoken_tokenizer.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tokenbench/core/input_limits.h"
#include "tokenbench/tokenizer/added_vocabulary.h"
#include "tokenbench/tokenizer/bpe_model.h"
#include "tokenbench/tokenizer/regex.h"
#include "tokenbench/tokenizer/scratch.h"
#include "tokenbench/tokenizer/utf8.h"

namespace tokenbench::tokenizer {
namespace {

struct EncodingSpec {
  std::string_view name;
  std::string_view pattern;
  std::vector<std::pair<std::string_view, std::int32_t>> specials;
};

const std::vector<EncodingSpec>& known_encodings() {
  static const std::vector<EncodingSpec> specs = {
      {"cl100k_base",
       R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+)"
       R"([\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
       {{"<|endoftext|>", 100257},
        {"<|fim_prefix|>", 100258},
        {"<|fim_middle|>", 100259},
        {"<|fim_suffix|>", 100260},
        {"<|endofprompt|>", 100276}}},
      {"o200k_base",
       R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+)"
       R"((?i:'s|'t|'re|'ve|'m|'ll|'d)?|)"
       R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*)"
       R"((?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|)"
       R"(\s+(?!\S)|\s+)",
       {{"<|endoftext|>", 199999}, {"<|endofprompt|>", 200018}}},
  };
  return specs;
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool base64_decode(std::string_view in, std::string& out) {
  out.clear();
  std::uint32_t buffer = 0;
  int bits = 0;
  for (const char c : in) {
    if (c == '=') break;
    const int v = base64_value(c);
    if (v < 0) return false;
    buffer = (buffer << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return true;
}

class TiktokenTokenizer final : public Tokenizer {
 public:
  TiktokenTokenizer(TokenTable ranks, const EncodingSpec& spec)
      : regex_(spec.pattern), name_(spec.name) {
    std::vector<AddedToken> specials;
    std::int32_t limit = static_cast<std::int32_t>(ranks.id_limit());
    for (const auto& [content, id] : spec.specials) {
      specials.push_back(AddedToken{std::string(content), id, true});
      special_ids_.push_back(id);
      limit = std::max(limit, id + 1);
      if (content == "<|endoftext|>") eos_ = id;
    }
    std::sort(special_ids_.begin(), special_ids_.end());
    special_content_.resize(limit);
    for (const auto& [content, id] : spec.specials) special_content_[id] = std::string(content);
    vocab_size_ = static_cast<std::size_t>(limit);
    matcher_ = AddedTokenMatcher(specials);
    BpeOptions options;
    options.byte_level = true;
    options.rank_by_concatenation = true;
    options.ignore_merges = true;
    model_ =
        std::make_unique<BpeModel>(std::move(ranks), std::vector<std::pair<int, int>>{}, options);
  }

  void encode_into(std::string_view text, bool, std::vector<std::int32_t>& ids) const override {
    thread_local std::string sanitized;
    thread_local std::vector<Segment> segments;
    if (!is_valid_utf8(text)) {
      sanitized = sanitize_utf8(text);
      text = sanitized;
    }
    segments.clear();
    matcher_.split(text, segments);
    for (std::size_t i = 0; i < segments.size(); ++i) {
      const Segment segment = segments[i];
      if (segment.id >= 0) {
        ids.push_back(segment.id);
        continue;
      }
      regex_.for_each_match(segment.text, [&](std::size_t start, std::size_t end) {
        model_->encode_word(segment.text.substr(start, end - start), ids);
      });
    }
    release_if_large(sanitized);
    release_if_large(segments);
  }

  std::string decode(std::span<const std::int32_t> ids) const override {
    std::string bytes;
    for (const std::int32_t id : ids) {
      if (is_special(id)) {
        bytes.append(special_content_[id]);
      } else {
        bytes.append(model_->vocab().bytes(id));
      }
    }
    return is_valid_utf8(bytes) ? bytes : sanitize_utf8(bytes);
  }

  std::size_t vocab_size() const override { return vocab_size_; }

  std::optional<std::string> id_to_token(std::int32_t id) const override {
    if (is_special(id)) return special_content_[id];
    if (!model_->vocab().contains_id(id)) return std::nullopt;
    return std::string(model_->vocab().bytes(id));
  }

  std::optional<std::int32_t> token_to_id(std::string_view token) const override {
    for (const std::int32_t id : special_ids_) {
      if (special_content_[id] == token) return id;
    }
    const std::int32_t id = model_->vocab().find(token);
    if (id == TokenTable::kNone) return std::nullopt;
    return id;
  }

  bool is_special(std::int32_t id) const override {
    return std::binary_search(special_ids_.begin(), special_ids_.end(), id);
  }
  std::vector<std::int32_t> special_ids() const override { return special_ids_; }
  std::optional<std::int32_t> bos_id() const override { return std::nullopt; }
  std::optional<std::int32_t> eos_id() const override { return eos_; }
  std::string description() const override { return "tiktoken (" + name_ + ")"; }

 private:
  Regex regex_;
  std::string name_;
  std::unique_ptr<BpeModel> model_;
  AddedTokenMatcher matcher_;
  std::vector<std::int32_t> special_ids_;
  std::vector<std::string> special_content_;
  std::optional<std::int32_t> eos_;
  std::size_t vocab_size_ = 0;
};

}  // namespace

std::unique_ptr<Tokenizer> load_tiktoken(const std::string& path, const std::string& encoding) {
  const auto fail = [&](const std::string& message) -> std::runtime_error {
    return std::runtime_error("tokenizer " + path + ": " + message);
  };
  std::string name = encoding;
  if (name.empty()) {
    const std::string file = std::filesystem::path(path).filename().string();
    for (const EncodingSpec& spec : known_encodings()) {
      if (file.find(spec.name) != std::string::npos) name = std::string(spec.name);
    }
    if (name.empty()) {
      throw fail(
          "cannot tell the encoding from the file name; name it (cl100k_base or "
          "o200k_base) with --tiktoken-encoding");
    }
  }
  const auto spec = std::find_if(known_encodings().begin(), known_encodings().end(),
                                 [&](const EncodingSpec& s) { return s.name == name; });
  if (spec == known_encodings().end()) {
    throw fail("unknown tiktoken encoding \"" + name + "\" (known: cl100k_base, o200k_base)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw fail("cannot open");
  TokenTable ranks;
  std::string line, bytes;
  core::LineReader lines(in, "tokenizer " + path);
  while (lines.next(line)) {
    const std::size_t line_number = lines.number();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::size_t space = line.find(' ');
    std::int64_t rank = -1;
    if (space != std::string::npos) {
      try {
        std::size_t used = 0;
        rank = std::stoll(line.substr(space + 1), &used);
        if (space + 1 + used != line.size()) rank = -1;
      } catch (const std::exception&) {
        rank = -1;
      }
    }
    // Ranks index dense tables: a bound keeps a hostile file from asking for gigabytes.
    if (rank < 0 || rank > (1 << 24) ||
        !base64_decode(std::string_view(line).substr(0, space), bytes)) {
      throw fail("line " + std::to_string(line_number) + " is not \"BASE64_TOKEN RANK\"");
    }
    ranks.add(bytes, static_cast<std::int32_t>(rank));
  }
  if (ranks.size() == 0) throw fail("no tokens");
  ranks.finish();
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    if (ranks.find(std::string_view(&c, 1)) == TokenTable::kNone) {
      throw fail("byte " + std::to_string(b) + " has no token: not a byte-level rank file");
    }
  }
  return std::make_unique<TiktokenTokenizer>(std::move(ranks), *spec);
}

}  // namespace tokenbench::tokenizer
