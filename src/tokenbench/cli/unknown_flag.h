#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tokenbench::cli {

/// What another benchmark client's flag that `run` and `search` do not take (vLLM's `vllm bench
/// serve`, EvalScope's `evalscope perf`, GenAI-Perf/AIPerf, GuideLLM, LLMPerf) is in tokenbench:
/// one clause naming the tool and saying what to use instead, or why it is not supported, e.g.
/// "--num-concurrent-requests (LLMPerf) is --max-concurrency N". nullopt for a flag no peer
/// table lists. Flags rewritten by flag_aliases.h never reach it.
std::optional<std::string> peer_flag_hint(const std::string& flag);

/// The flag of `known` closest to `flag` by edit distance (insertions, deletions, substitutions
/// and swaps of two neighbours each count 1), when it is close enough to be a typo: at most 1 +
/// a fifth of the flag's length, and less than its length. "" when none is.
std::string closest_flag(const std::string& flag, const std::vector<std::string>& known);

/// The one-line error for `flag` (a "--name", its value cut off), which `command` (e.g. "run")
/// does not have, given that command's long flags `known`: a peer tool's flag says what it maps
/// to; otherwise the closest known flag is suggested. Never repeats a value that followed the
/// flag (it may be a credential).
std::string unknown_flag_message(const std::string& command, const std::string& flag,
                                 const std::vector<std::string>& known);

/// The first argument of `args` (a subcommand's arguments, after aliases and --config were
/// expanded) that looks like a long flag ("--name" or "--name=value") and that `is_known` does
/// not accept, cut to its name; "" when every one is known. A bare "--" ends the flags.
std::string first_unknown_flag(const std::vector<std::string>& args,
                               const std::function<bool(const std::string&)>& is_known);

}  // namespace tokenbench::cli
