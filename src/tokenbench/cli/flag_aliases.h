#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace tokenbench::cli {

/// The environment variable that carries EvalScope's `--api-key KEY` to the run: the alias
/// becomes `--api-key-env` with this name, and main() puts the key there.
inline constexpr const char* kGivenKeyEnv = "TOKENBENCH_API_KEY";

/// What rewrite_aliases made of a command's arguments.
struct Rewritten {
  std::vector<std::string> args;   ///< tokenbench's own flags, in order
  std::vector<std::string> notes;  ///< one line per rewrite, for the user to see what was done
  /// The key of EvalScope's `--api-key KEY`, which the caller puts into kGivenKeyEnv before the
  /// run; never printed or written anywhere. Empty when the flag was not given.
  std::string api_key;
};

/// Rewrites the flags other benchmark clients use (vLLM's `vllm bench serve`, EvalScope's
/// `evalscope perf`, GenAI-Perf/AIPerf) into tokenbench's own, for `run` and `search`:
/// `--random-input-len 512` becomes `--input-len 512`, `--host H --port P` one `--base-url`,
/// `--min-prompt-length A --max-prompt-length B` an input length or length distribution, and so
/// on (docs/CLI.md, "Coming from another tool"). `args` are the subcommand's arguments (after
/// `run`); `--flag=value` is understood. An alias whose meaning differs from tokenbench's, or
/// that would change what is measured, is refused, never reinterpreted: throws UsageError with
/// one line saying why and what to use. Flags it does not know pass unchanged.
Rewritten rewrite_aliases(const std::vector<std::string>& args);

/// The defaults of vLLM's `vllm bench serve` (`tool` "vLLM") or EvalScope's `evalscope perf`
/// ("EvalScope") that differ from run's, as flags to add to the peer's line `args`, a note each
/// in `notes`: what `tokenbench bench serve` and `tokenbench perf` add to `run`.
std::vector<std::string> peer_line_defaults(const std::string& tool,
                                            const std::vector<std::string>& args,
                                            std::vector<std::string>& notes);

/// `text`, whole, as a number ("-1", "0.5"); nullopt when it is not one.
std::optional<double> as_number(const std::string& text);

/// `name` is among `args`, as "--name" or "--name=value".
bool has_flag(const std::vector<std::string>& args, const std::string& name);

/// The value given to the first of `names` found in `args` ("--flag V" or "--flag=V"); nullopt
/// when none is.
std::optional<std::string> value_in(const std::vector<std::string>& args,
                                    std::initializer_list<const char*> names);

/// An argument that is a flag ("--rate", "-m"), not a value: a negative number is a value.
bool is_flag(const std::string& arg);

/// Every flag name rewrite_aliases takes ("--random-input-len", ...), for suggestions.
std::vector<std::string> alias_names();

}  // namespace tokenbench::cli
