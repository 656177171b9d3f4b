// `tokenbench report DIR`: rebuilds summary.json and the console tables from requests.jsonl.

#include <cstdio>
#include <filesystem>
#include <memory>

#include "tokenbench/cli/commands.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/experiment/journal.h"
#include "tokenbench/report/records_io.h"
#include "tokenbench/report/run_outputs.h"

namespace tokenbench::cli {
namespace {

struct ReportFlags {
  std::string dir;
};

int report_command(const ReportFlags& f) {
  try {
    const std::string config_path = f.dir + "/" + report::kConfigFile;
    const std::string requests_path = f.dir + "/" + report::kRequestsFile;
    if (!std::filesystem::is_regular_file(requests_path)) {
      if (const std::string hint = experiment::experiment_root_hint(f.dir); !hint.empty()) {
        std::fprintf(stderr, "tokenbench: error: %s\n", hint.c_str());
        return kExitUsage;
      }
      std::fprintf(stderr,
                   "tokenbench: error: %s has no %s: pass a results directory written by "
                   "`tokenbench run`\n",
                   f.dir.c_str(), report::kRequestsFile);
      return kExitUsage;
    }
    core::RunConfig config;
    if (std::filesystem::is_regular_file(config_path)) {
      config = core::run_config_from_yaml(report::read_text_file(config_path));
    }
    report::RecordsReadReport read;
    const auto records = report::read_records_jsonl(requests_path, &read);
    if (read.skipped_lines > 0) {
      std::fprintf(stderr, "tokenbench: warning: %s\n", read.skipped_reason.c_str());
    }
    report::RunNotes notes = report::read_telemetry(f.dir);
    notes.environment = report::read_environment(f.dir);
    const auto out = report::write_run_outputs(f.dir, records, config, notes);
    std::fputs(out.console.c_str(), stdout);
    return out.summary.completed > 0 ? kExitOk : kExitNoMeasure;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return kExitUsage;
  }
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<ReportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Recompute summary.json and the tables from a results directory's requests.jsonl");
  cmd->add_option("dir", flags->dir, "Results directory")->required();
  cmd->callback([flags, &exit_code] { exit_code = report_command(*flags); });
}

}  // namespace tokenbench::cli
