#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "tokenbench/cli/commands.h"
#include "tokenbench/cli/config_file.h"
#include "tokenbench/cli/flag_aliases.h"
#include "tokenbench/cli/run_flags.h"
#include "tokenbench/core/version.h"

namespace {

// `run` and `search` take other tools' flag names (flag_aliases.h) and --config FILE
// (config_file.h): both become tokenbench's own flags before CLI11 sees them. Returns the
// arguments after the program name, in CLI11's reversed order.
std::vector<std::string> prepared_args(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "run" || args[0] == "search")) {
    CLI::App* sub = app.get_subcommand(args[0]);
    std::vector<std::string> notes;
    std::vector<std::string> rest(args.begin() + 1, args.end());
    rest = tokenbench::cli::rewrite_aliases(rest, notes);
    rest = tokenbench::cli::expand_config(
        rest, [sub](const std::string& flag) { return sub->get_option_no_throw(flag) != nullptr; },
        notes);
    for (const auto& n : notes) std::fprintf(stderr, "tokenbench: note: %s\n", n.c_str());
    rest.insert(rest.begin(), args[0]);
    args = std::move(rest);
  }
  return {args.rbegin(), args.rend()};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tokenbench: a load generator and benchmark for LLM inference servers"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tokenbench " + std::string(tokenbench::core::kVersion));
  tokenbench::cli::set_command_line(argc, argv);
  int exit_code = tokenbench::cli::kExitOk;
  tokenbench::cli::add_run_command(app, exit_code);
  tokenbench::cli::add_check_command(app, exit_code);
  tokenbench::cli::add_search_command(app, exit_code);
  tokenbench::cli::add_report_command(app, exit_code);
  tokenbench::cli::add_compare_command(app, exit_code);
  tokenbench::cli::add_serve_sim_command(app, exit_code);
  tokenbench::cli::add_tokenize_command(app, exit_code);
  try {
    std::vector<std::string> args = prepared_args(app, argc, argv);
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? tokenbench::cli::kExitOk : tokenbench::cli::kExitUsage;
  } catch (const tokenbench::cli::UsageError& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return tokenbench::cli::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return tokenbench::cli::kExitUsage;
  }
  return exit_code;
}
