#pragma once

#include <string>
#include <vector>

namespace tokenbench::cli {

/// Rewrites the flags other benchmark clients use (vLLM's `vllm bench serve`, EvalScope's
/// `evalscope perf`, GenAI-Perf/AIPerf) into tokenbench's own, for `run` and `search`:
/// `--random-input-len 512` becomes `--input-len 512`, `--host H --port P` one `--base-url`,
/// `--min-prompt-length A --max-prompt-length B` an input length and range ratio, and so on
/// (docs/CLI.md, "Coming from another tool"). `args` are the subcommand's arguments (after
/// `run`); `--flag=value` is understood. An alias whose meaning differs from tokenbench's is
/// refused, never reinterpreted: throws UsageError with one line saying why and what to use.
/// Each rewrite is described in `notes` (one line each) so the user can see what was done.
std::vector<std::string> rewrite_aliases(const std::vector<std::string>& args,
                                         std::vector<std::string>& notes);

}  // namespace tokenbench::cli
