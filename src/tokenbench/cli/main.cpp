#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "tokenbench/cli/commands.h"
#include "tokenbench/core/version.h"

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
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? tokenbench::cli::kExitOk : tokenbench::cli::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return tokenbench::cli::kExitUsage;
  }
  return exit_code;
}
