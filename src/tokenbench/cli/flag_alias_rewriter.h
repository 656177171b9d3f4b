#pragma once

// Internal to cli/: the rewriting of run's aliases (flag_aliases.h), split by tool.
// flag_aliases.cpp groups the arguments by the peers' rows (peer_verbs.h) and holds vLLM's and
// GenAI-Perf's rules; flag_aliases_evalscope.cpp holds EvalScope's.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/cli/flag_aliases.h"
#include "tokenbench/cli/peer_verbs.h"

namespace tokenbench::cli::aliases {

/// One argument: a flag with its values, in order.
struct Arg {
  std::string name;                 ///< "--flag" (an alias's first spelling), or "" for a value
  std::vector<std::string> values;  ///< the values that follow (or the =value)
  std::string given;                ///< an alias as written ("-n")
  std::string_view tool;            ///< an alias's tool
  const PeerFlag* row = nullptr;    ///< an alias's row
};

/// The arguments grouped: an alias takes the values its row's arity says; any other flag is
/// kept verbatim, its value as the value argument that follows.
std::vector<Arg> group(const std::vector<std::string>& args);

/// The single value of `a`; throws UsageError when it has none or several.
std::string only_value(const Arg& a);

/// The whole endpoint path a URL names ("/v1/chat/completions"), or "" (none, or only "/v1").
std::string endpoint_named_by(const std::string& url);

class Rewriter {
 public:
  explicit Rewriter(const std::vector<std::string>& args) : args_(args) {}

  Rewritten run();

 private:
  void emit(const std::string& flag, const std::string& value);
  void note(const std::string& alias, std::string_view tool, const std::string& became);
  /// The line carries a flag only EvalScope has.
  bool evalscope() const;
  /// The line is vLLM's bench serve (--peer vllm).
  bool vllm_line() const;

  void rename(const Arg& a);
  void rule(const Arg& a);

  // vLLM's and GenAI-Perf's rules (flag_aliases.cpp).
  void backend(const std::string& b);
  void dataset_name(const std::string& d);
  void header(const Arg& a);
  void label(const Arg& a);
  void stddev(const Arg& a);
  void host_port();

  // EvalScope's rules (flag_aliases_evalscope.cpp): the first handles `a` when it is EvalScope's.
  bool evalscope_rule(const Arg& a);
  void evalscope_finish();
  void evalscope_dataset(const std::string& d);
  void data_source(const std::string& s);
  void url(std::string u);
  void api(const std::string& v);
  void api_key(const Arg& a);
  void number(const Arg& a);
  void rate(const Arg& a);
  void warmup_num(const std::string& v);
  void prompt_bounds();
  void token_bounds();
  void image_size();
  void turns();

  const std::vector<std::string>& args_;
  Rewritten out_;
  std::map<std::string, std::string> pending_;  // host/port and EvalScope's bounds
  std::vector<std::string> max_tokens_;         // EvalScope's --max-tokens values
};

}  // namespace tokenbench::cli::aliases
