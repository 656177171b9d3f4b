// The walk over a peer's command line shared by every peer (peer_translator.h), and the choice
// of the peer's translator.

#include "tokenbench/cli/peer_translator.h"

#include <fmt/format.h>

#include <algorithm>

#include "tokenbench/cli/run_flags.h"

namespace tokenbench::cli {

Rewritten PeerTranslator::run() {
  for (std::size_t i = 0; i < args_.size(); ++i) {
    const std::string& a = args_[i];
    const auto eq = a.find('=');
    const std::string name = a.rfind("--", 0) == 0 && eq != std::string::npos ? a.substr(0, eq) : a;
    const PeerFlag* f = is_flag(a) ? peer_flag(peer_, name) : nullptr;
    if (f == nullptr) {
      out_.args.push_back(a);  // tokenbench's own flag or its value
      continue;
    }
    std::vector<std::string> values;
    if (eq != std::string::npos && name != a) {
      values.push_back(a.substr(eq + 1));
    } else if (f->arity != PeerArity::kNone) {
      while (i + 1 < args_.size() && (f->arity == PeerArity::kOne ? values.empty() : true) &&
             !is_flag(args_[i + 1])) {
        values.push_back(args_[++i]);
      }
    }
    if (f->rule == PeerRule::kRefuse) refuse(a, std::string(f->note));
    seen_.insert(std::string(f->names.substr(0, f->names.find(", "))));
    if (f->arity != PeerArity::kNone && values.empty()) {
      throw UsageError(fmt::format("{} ({}) needs a value", name, peer_.tool));
    }
    apply(*f, name, values);
  }
  finish();
  return std::move(out_);
}

void PeerTranslator::apply(const PeerFlag& f, const std::string& name,
                           const std::vector<std::string>& values) {
  const std::string given = values.empty() ? name : name + " " + joined(values);
  switch (f.rule) {
    case PeerRule::kRename:
      emit(std::string(f.becomes), values.empty() ? "" : values.front());
      note(given, joined({std::string(f.becomes), values.empty() ? "" : values.front()}));
      return;
    case PeerRule::kIgnore:
      note(given, "ignored: " + std::string(f.note));
      return;
    case PeerRule::kRefuse:
      refuse(given, std::string(f.note));
    case PeerRule::kRule:
      rule(std::string(f.names.substr(0, f.names.find(", "))), given, values);
      return;
  }
}

void PeerTranslator::emit(const std::string& flag, const std::string& value) {
  out_.args.push_back(flag);
  if (!value.empty()) out_.args.push_back(value);
}

void PeerTranslator::note(const std::string& given, const std::string& became) {
  out_.notes.push_back(fmt::format("{} ({}) is {}", given, peer_.tool, became));
}

void PeerTranslator::refuse(const std::string& given, const std::string& why) const {
  throw UsageError(fmt::format("{} ({}) is refused: {}", given, peer_.tool, why));
}

std::string PeerTranslator::joined(const std::vector<std::string>& values, const char* sep) {
  return fmt::format("{}", fmt::join(values, sep));
}

bool PeerTranslator::has_own(const char* flag) const { return has_flag(args_, flag); }

std::string PeerTranslator::input_mean(const char* fallback) const {
  for (std::size_t i = 0; i + 1 < args_.size(); ++i) {
    const PeerFlag* f = peer_flag(peer_, args_[i]);
    if ((f != nullptr && f->becomes == "--input-len") || args_[i] == "--input-len") {
      return args_[i + 1];
    }
  }
  return fallback;
}

Rewritten translate_peer(const PeerCli& peer, const std::vector<std::string>& args) {
  if (peer.verb == "profile") return aiperf_translator(peer, args)->run();
  if (peer.verb == "benchmark") return guidellm_translator(peer, args)->run();
  if (peer.tool == "SGLang") return sglang_translator(peer, args)->run();
  return llmperf_translator(peer, args)->run();
}

}  // namespace tokenbench::cli
