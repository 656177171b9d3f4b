#pragma once

// Other benchmark clients' whole command lines as ways into a run (docs/CLI.md, "Peers' command
// lines"): `tokenbench profile ...` takes AIPerf's and GenAI-Perf's `profile` flags,
// `tokenbench benchmark ...` GuideLLM's, `tokenbench bench serve ...` vLLM's and
// `tokenbench perf ...` EvalScope's (these two are `run` with its peer aliases, flag_aliases.h),
// and `run` takes LLMPerf's and SGLang's (peer_on_run). Each peer's flags are rows of one table
// (peer_tables.cpp, peer_rows_vllm.cpp, peer_rows_evalscope.cpp): the translation reads them
// (peer_translator.h, or flag_aliases.h for vLLM's and EvalScope's), and so does the table
// docs/CLI.md prints, so that the two cannot drift.

#include <CLI/CLI.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenbench/cli/flag_aliases.h"

namespace tokenbench::cli {

/// What a peer's flag does here.
enum class PeerRule {
  kRename,  ///< the tokenbench flag `becomes`, with the value unchanged (or none)
  kIgnore,  ///< what tokenbench does anyway: accepted, said, dropped
  kRefuse,  ///< cannot be honoured: the command fails with `note` as the reason
  kRule,    ///< translated by a rule of its own (its peer_*.cpp); `becomes` says what in words
};

/// How many values a peer's flag takes.
enum class PeerArity {
  kNone,  ///< a switch
  kOne,   ///< one value
  kMany,  ///< every value up to the next flag (repeatable too)
};

/// One flag of a peer's CLI.
struct PeerFlag {
  std::string_view names;  ///< every spelling, ", "-separated, the first canonical: "-m, --model"
  PeerArity arity = PeerArity::kOne;
  PeerRule rule = PeerRule::kRename;
  std::string_view becomes;  ///< kRename: the flag; kRule: what it becomes, in words
  std::string_view note;     ///< kRefuse: why; otherwise an optional remark
};

/// How a peer's command line becomes a run.
enum class PeerRoute {
  kVerb,     ///< a verb of its own (profile, benchmark), translated by its rows (translate_peer)
  kOnRun,    ///< run's arguments carry its flags (peer_on_run), translated by its rows
  kAliases,  ///< run's own aliases (flag_aliases.h) read its rows: vLLM's, EvalScope's
  kConfig,   ///< a config file's keys (`run --config`): inference-perf's YAML
};

/// One peer's command: its verb here, the tool, the version and source its table was read from.
struct PeerCli {
  std::string_view verb;     ///< "profile", "benchmark"
  std::string_view tool;     ///< "AIPerf / GenAI-Perf"
  std::string_view command;  ///< the peer's own command: "aiperf profile"
  std::string_view source;   ///< "ai-dynamo/aiperf v0.2.0, aiperf/common/config/..."
  std::span<const PeerFlag> flags;
  PeerRoute route = PeerRoute::kVerb;
};

/// The rows of vLLM's `vllm bench serve` and EvalScope's `evalscope perf` (peer_rows_*.cpp).
std::span<const PeerFlag> vllm_rows();
std::span<const PeerFlag> evalscope_rows();
/// inference-perf's YAML keys (peer_rows_inference_perf.cpp): "load.stages[].rate", "metrics.*".
std::span<const PeerFlag> inference_perf_rows();

/// A flag of a peer whose flags run's aliases take: its row, under its first spelling.
struct AliasRow {
  const PeerFlag* row = nullptr;
  std::string_view tool;       ///< "vLLM", "EvalScope"
  std::string_view canonical;  ///< the row's first spelling
};

/// The row of `flag` among vLLM's rows, then EvalScope's; nullopt when neither has it.
std::optional<AliasRow> alias_row(std::string_view flag);

/// The tools whose rows refuse `flag` ("vLLM, EvalScope") and the first such row's reason;
/// nullopt when none does.
std::optional<std::pair<std::string, std::string_view>> alias_refusal(std::string_view flag);

/// The peers whose whole command lines tokenbench takes under a verb of its own.
std::span<const PeerCli> peer_clis();

/// The peer command `verb` names ("profile", "benchmark"; a kVerb route), or null.
const PeerCli* peer_cli(std::string_view verb);

/// The peer whose flags run's aliases take under `verb` ("bench serve", "perf"), or null.
const PeerCli* peer_alias_cli(std::string_view verb);

/// inference-perf's (its config's keys: `run --config FILE`, `tokenbench inference-perf ...`).
const PeerCli* peer_config_cli();

/// The peer whose flags `run`'s arguments carry (LLMPerf's), or null.
const PeerCli* peer_on_run(const std::vector<std::string>& args);

/// Each ", "-separated spelling of a row's `names`, the first canonical.
std::vector<std::string_view> peer_spellings(std::string_view names);

/// The row of `flag` ("--model", "-m") in `peer`'s table, or null.
const PeerFlag* peer_flag(const PeerCli& peer, std::string_view flag);

/// `peer`'s command line `args` (after the verb) as `tokenbench run` arguments, with a note per
/// flag saying what it became. A flag of tokenbench's own passes unchanged; a refused one throws
/// UsageError naming the flag and why.
Rewritten translate_peer(const PeerCli& peer, const std::vector<std::string>& args);

/// The Markdown table of every peer's flags (docs/CLI.md between its generated marks).
std::string peer_tables_markdown();

/// `tokenbench VERB --help` for a peer verb: what it is and its table, as text.
std::string peer_help(const PeerCli& peer);

/// The peer verbs as commands of `app` (profile, benchmark, bench, perf), so that --help, the
/// man page and the completions list them; main() turns each into `run` before parsing.
void add_peer_commands(CLI::App& app);

}  // namespace tokenbench::cli
