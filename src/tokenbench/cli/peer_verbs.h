#pragma once

// Other benchmark clients' whole command lines as ways into a run (docs/CLI.md, "Peers' command
// lines"): `tokenbench profile ...` takes AIPerf's and GenAI-Perf's `profile` flags,
// `tokenbench benchmark ...` GuideLLM's, `tokenbench bench serve ...` vLLM's and
// `tokenbench perf ...` EvalScope's (these two are `run` with its peer aliases, flag_aliases.h),
// and `run` takes LLMPerf's and SGLang's (peer_on_run). Each peer's flags are rows of one table
// (peer_tables.cpp): the translation reads them (peer_translator.h), and so does the table
// docs/CLI.md prints, so that the two cannot drift.

#include <CLI/CLI.hpp>
#include <span>
#include <string>
#include <string_view>
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

/// One peer's command: its verb here, the tool, the version and source its table was read from.
struct PeerCli {
  std::string_view verb;     ///< "profile", "benchmark"
  std::string_view tool;     ///< "AIPerf / GenAI-Perf"
  std::string_view command;  ///< the peer's own command: "aiperf profile"
  std::string_view source;   ///< "ai-dynamo/aiperf v0.2.0, aiperf/common/config/..."
  std::span<const PeerFlag> flags;
};

/// The peers whose whole command lines tokenbench takes under a verb of its own.
std::span<const PeerCli> peer_clis();

/// The peer command `verb` names ("profile", "benchmark"), or null.
const PeerCli* peer_cli(std::string_view verb);

/// The peer whose flags `run`'s arguments carry (LLMPerf's), or null.
const PeerCli* peer_on_run(const std::vector<std::string>& args);

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
