#pragma once

// Internal to cli/: the translation of a peer's command line (peer_verbs.h), split by peer. The
// base walks the arguments row by row of the peer's table (renames pass their value, ignored
// flags are said and dropped, refused ones end the command with their reason) and hands each
// kRule row to the peer's own rule; each peer_*.cpp file holds one peer's rules and defaults.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tokenbench/cli/peer_verbs.h"

namespace tokenbench::cli {

class PeerTranslator {
 public:
  PeerTranslator(const PeerCli& peer, const std::vector<std::string>& args)
      : peer_(peer), args_(args) {}
  PeerTranslator(const PeerTranslator&) = delete;
  PeerTranslator& operator=(const PeerTranslator&) = delete;
  virtual ~PeerTranslator() = default;

  /// The whole command line as `tokenbench run` arguments with a note per flag.
  Rewritten run();

 protected:
  /// A kRule row: `flag` is its canonical name, `given` the flag as written with its values.
  virtual void rule(const std::string& flag, const std::string& given,
                    const std::vector<std::string>& values) = 0;
  /// After every flag: the peer's defaults made explicit and what depends on several flags.
  virtual void finish() = 0;

  void emit(const std::string& flag, const std::string& value = "");
  void note(const std::string& given, const std::string& became);
  [[noreturn]] void refuse(const std::string& given, const std::string& why) const;
  static std::string joined(const std::vector<std::string>& values, const char* sep = " ");
  /// tokenbench's own `flag` is among the arguments.
  bool has_own(const char* flag) const;
  /// The peer's flag of canonical name `canonical` was given.
  bool seen(const char* canonical) const { return seen_.contains(canonical); }
  /// The mean input length: the peer's flag that becomes --input-len, run's own, or `fallback`.
  std::string input_mean(const char* fallback) const;

  const PeerCli& peer_;
  const std::vector<std::string>& args_;
  Rewritten out_;

 private:
  void apply(const PeerFlag& f, const std::string& name, const std::vector<std::string>& values);

  std::set<std::string> seen_;  // the canonical names of the peer's flags given
};

// One translator per peer, each in its own file.
std::unique_ptr<PeerTranslator> aiperf_translator(const PeerCli& peer,
                                                  const std::vector<std::string>& args);
std::unique_ptr<PeerTranslator> guidellm_translator(const PeerCli& peer,
                                                    const std::vector<std::string>& args);
std::unique_ptr<PeerTranslator> llmperf_translator(const PeerCli& peer,
                                                   const std::vector<std::string>& args);
std::unique_ptr<PeerTranslator> sglang_translator(const PeerCli& peer,
                                                  const std::vector<std::string>& args);

}  // namespace tokenbench::cli
