#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "tokenbench/cli/commands.h"
#include "tokenbench/cli/config_file.h"
#include "tokenbench/cli/flag_aliases.h"
#include "tokenbench/cli/inference_perf_config.h"
#include "tokenbench/cli/number_flags.h"
#include "tokenbench/cli/peer_verbs.h"
#include "tokenbench/cli/run_flags.h"
#include "tokenbench/cli/unknown_flag.h"
#include "tokenbench/core/version.h"

namespace {

CLI::App* subcommand_named(CLI::App& app, const std::string& name) {
  const auto found = app.get_subcommands([&name](CLI::App* s) { return s->get_name() == name; });
  return found.empty() ? nullptr : found.front();
}

// An argument that is not a command: one line naming it and the closest command.
void check_command(CLI::App& app, const std::string& first,
                   const std::string& where = "tokenbench") {
  if (first.empty() || first[0] == '-' || subcommand_named(app, first) != nullptr) return;
  std::vector<std::string> names;
  for (const CLI::App* s : app.get_subcommands([](CLI::App*) { return true; })) {
    names.push_back(s->get_name());
  }
  const std::string close = tokenbench::cli::closest_flag(first, names);
  throw tokenbench::cli::UsageError("unknown command '" + first + "'" +
                                    (close.empty() ? "" : ": did you mean " + close + "?") + " (" +
                                    where + " --help lists the commands)");
}

// A flag `sub` does not have: one line naming it, what a peer tool's flag is here, or the closest
// flag (unknown_flag.h), rather than CLI11's list of every argument left over.
void check_flags(CLI::App& sub, const std::vector<std::string>& args, const std::string& name) {
  const std::string unknown = tokenbench::cli::first_unknown_flag(
      args, [&sub](const std::string& f) { return sub.get_option_no_throw(f) != nullptr; });
  if (unknown.empty()) return;
  std::vector<std::string> known;
  for (const CLI::Option* o : sub.get_options()) {
    for (const auto& l : o->get_lnames()) known.push_back("--" + l);
  }
  if (sub.get_name() == "run" || sub.get_name() == "search") {
    for (auto& a : tokenbench::cli::alias_names()) known.push_back(std::move(a));
  }
  throw tokenbench::cli::UsageError(tokenbench::cli::unknown_flag_message(name, unknown, known));
}

// The key of --api-key, once copied: the process's own copy of its arguments is overwritten, so
// that ps and /proc/PID/cmdline no longer show it (they did while the process started).
void mask_api_key(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    char* value = nullptr;
    if (std::strcmp(argv[i], "--api-key") == 0 && i + 1 < argc) {
      value = argv[i + 1];
    } else if (std::strncmp(argv[i], "--api-key=", 10) == 0) {
      value = argv[i] + 10;
    }
    if (value != nullptr) std::memset(value, '*', std::strlen(value));
  }
}

// Thrown by peer_command for `tokenbench VERB --help`: the help is printed, the exit is 0.
struct HelpShown {};

// A peer's command line (peer_verbs.h) becomes `run`'s: `profile` (AIPerf, GenAI-Perf) and
// `benchmark` (GuideLLM) through their tables, `bench serve` (vLLM) and `perf` (EvalScope) as they
// are, `run` taking their flags (flag_aliases.h). What each flag became is said on stderr.
void peer_command(std::vector<std::string>& args) {
  const bool help = std::any_of(args.begin() + 1, args.end(),
                                [](const std::string& a) { return a == "--help" || a == "-h"; });
  if (const auto* peer = tokenbench::cli::peer_cli(args[0])) {
    if (help) {
      std::fputs(tokenbench::cli::peer_help(*peer).c_str(), stdout);
      throw HelpShown{};
    }
    tokenbench::cli::Rewritten t =
        tokenbench::cli::translate_peer(*peer, {args.begin() + 1, args.end()});
    if (!t.api_key.empty()) setenv(tokenbench::cli::kGivenKeyEnv, t.api_key.c_str(), 1);
    for (const auto& n : t.notes) {
      std::fprintf(stderr, "tokenbench: %s: %s\n", std::string(peer->verb).c_str(), n.c_str());
    }
    t.args.insert(t.args.begin(), "run");
    args = std::move(t.args);
    return;
  }
  if (args[0] == "inference-perf") {
    if (help) {
      std::fputs(tokenbench::cli::peer_help(*tokenbench::cli::peer_config_cli()).c_str(), stdout);
      throw HelpShown{};
    }
    std::vector<std::string> rest;
    std::vector<std::string> notes;
    const auto from_config =
        tokenbench::cli::inference_perf_command({args.begin() + 1, args.end()}, rest, notes);
    for (const auto& n : notes) std::fprintf(stderr, "tokenbench: inference-perf: %s\n", n.c_str());
    args = tokenbench::cli::flags_over(from_config, rest);
    args.insert(args.begin(), "run");
    return;
  }
  const bool bench_serve = args[0] == "bench" && args.size() > 1 && args[1] == "serve";
  if (args[0] == "bench" && !bench_serve && !help) {
    throw tokenbench::cli::UsageError(
        "tokenbench bench takes vLLM's `bench serve` only: tokenbench bench serve --model M ...");
  }
  if (!bench_serve && args[0] != "perf") return;
  const tokenbench::cli::PeerCli& peer =
      *tokenbench::cli::peer_alias_cli(bench_serve ? "bench serve" : "perf");
  if (help) {
    std::fputs(tokenbench::cli::peer_help(peer).c_str(), stdout);
    throw HelpShown{};
  }
  const std::string verb(peer.verb);
  std::fprintf(stderr, "tokenbench: %s (%s) is tokenbench run, which takes its flags\n",
               verb.c_str(), std::string(peer.tool).c_str());
  args.erase(args.begin(), args.begin() + (bench_serve ? 2 : 1));
  std::vector<std::string> notes;
  const auto add = tokenbench::cli::peer_line_defaults(std::string(peer.tool), args, notes);
  args.insert(args.end(), add.begin(), add.end());
  for (const auto& n : notes) std::fprintf(stderr, "tokenbench: %s: %s\n", verb.c_str(), n.c_str());
  args.insert(args.begin(), "run");
}

// `run` and `search` take other tools' flag names (flag_aliases.h) and --config FILE
// (config_file.h): both become tokenbench's own flags before CLI11 sees them. Every command's
// flags are checked (check_flags). Returns the arguments after the program name, in CLI11's
// reversed order.
std::vector<std::string> prepared_args(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return args;
  peer_command(args);
  check_command(app, args[0]);
  CLI::App* sub = subcommand_named(app, args[0]);
  if (sub == nullptr) return {args.rbegin(), args.rend()};
  std::vector<std::string> rest(args.begin() + 1, args.end());
  std::vector<std::string> notes;
  if (args[0] == "run") {
    // LLMPerf's or SGLang's flags on run: translated by its table first (peer_verbs.h).
    if (const auto* peer = tokenbench::cli::peer_on_run(rest)) {
      tokenbench::cli::Rewritten t = tokenbench::cli::translate_peer(*peer, rest);
      for (const auto& n : t.notes) notes.push_back(n);
      rest = std::move(t.args);
    }
  }
  if (args[0] == "run" || args[0] == "search") {
    tokenbench::cli::Rewritten rewritten = tokenbench::cli::rewrite_aliases(rest);
    if (!rewritten.api_key.empty()) {
      setenv(tokenbench::cli::kGivenKeyEnv, rewritten.api_key.c_str(), 1);
    }
    notes.insert(notes.end(), rewritten.notes.begin(), rewritten.notes.end());
    rest = tokenbench::cli::expand_config(
        rewritten.args,
        [sub](const std::string& flag) { return sub->get_option_no_throw(flag) != nullptr; },
        notes);
  }
  if (args[0] == "compare") {
    // BASE... -- NEW...: compare reads the split from the command line (compare.cpp); CLI11
    // takes every directory as one list.
    if (const auto sep = std::find(rest.begin(), rest.end(), "--"); sep != rest.end()) {
      rest.erase(sep);
    }
  }
  // A command of commands (history list, ...): the flags are the inner command's.
  CLI::App* checked = sub;
  std::string name = sub->get_name();
  auto from = rest.begin();
  while (!checked->get_subcommands([](CLI::App*) { return true; }).empty() && from != rest.end()) {
    check_command(*checked, *from, "tokenbench " + name);
    CLI::App* inner = subcommand_named(*checked, *from);
    if (inner == nullptr) break;
    checked = inner;
    name += " " + inner->get_name();
    ++from;
  }
  check_flags(*checked, {from, rest.end()},
              name);  // before the notes: a refused command says one line
  for (const auto& n : notes) std::fprintf(stderr, "tokenbench: note: %s\n", n.c_str());
  rest.insert(rest.begin(), args[0]);
  return {rest.rbegin(), rest.rend()};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tokenbench: a load generator and benchmark for LLM inference servers"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tokenbench " + std::string(tokenbench::core::kVersion));
  tokenbench::cli::set_command_line(argc, argv);  // --api-key's value redacted
  int exit_code = tokenbench::cli::kExitOk;
  tokenbench::cli::add_run_command(app, exit_code);
  tokenbench::cli::add_check_command(app, exit_code);
  tokenbench::cli::add_search_command(app, exit_code);
  tokenbench::cli::add_report_command(app, exit_code);
  tokenbench::cli::add_compare_command(app, exit_code);
  tokenbench::cli::add_serve_sim_command(app, exit_code);
  tokenbench::cli::add_tokenize_command(app, exit_code);
  tokenbench::cli::add_convert_command(app, exit_code);
  tokenbench::cli::add_history_command(app, exit_code);
  tokenbench::cli::add_peer_commands(app);
  tokenbench::cli::add_completion_command(app, exit_code);  // after every other command
  tokenbench::cli::add_man_command(app, exit_code);
  tokenbench::cli::guard_number_flags(app);
  // A file-size limit (ulimit -f) makes a write fail with EFBIG, as a full disk does with ENOSPC:
  // the run keeps its summary (or prints it) instead of dying of SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    std::vector<std::string> args = prepared_args(app, argc, argv);
    mask_api_key(argc, argv);
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? tokenbench::cli::kExitOk : tokenbench::cli::kExitUsage;
  } catch (const HelpShown&) {
    return tokenbench::cli::kExitOk;
  } catch (const tokenbench::cli::UsageError& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return tokenbench::cli::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return tokenbench::cli::kExitUsage;
  }
  return exit_code;
}
