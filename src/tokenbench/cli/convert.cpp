// `tokenbench convert --from weka|otel INPUT... [--output FILE]`: published agentic traces into a
// job file (docs/WORKLOADS.md, "Importing traces"), to check, edit and run with --dataset jobs.

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tokenbench/cli/commands.h"
#include "tokenbench/cli/option_values.h"
#include "tokenbench/records/results_dir.h"
#include "tokenbench/workload/trace_import.h"

namespace tokenbench::cli {
namespace {

struct ConvertFlags {
  std::string from;
  std::vector<std::string> inputs;
  std::string output;
  double max_delay_ms = -1;
};

int convert_command(const ConvertFlags& f) {
  if (f.from != "weka" && f.from != "otel") {
    std::fprintf(stderr, "tokenbench: error: --from %s: the traces' format is weka or otel\n",
                 f.from.c_str());
    return kExitUsage;
  }
  workload::ImportedJobs jobs;
  const bool to_stdout = f.output.empty() || f.output == "-";
  std::FILE* out = stdout;
  try {
    const std::vector<std::string> files = workload::trace_files(f.inputs);
    if (!to_stdout) out = records::open_for_writing(f.output);
    workload::ImportOptions options;
    options.max_delay_ms = f.max_delay_ms;
    options.write = [out, &f](const std::string& line) {
      if (std::fwrite(line.data(), 1, line.size(), out) != line.size() ||
          std::fputc('\n', out) == EOF) {
        throw std::runtime_error("cannot write " + (f.output.empty() ? "-" : f.output) + ": " +
                                 std::strerror(errno));
      }
    };
    jobs = f.from == "weka" ? workload::import_weka(files, options)
                            : workload::import_otel(files, options);
    if (std::fflush(out) != 0 || (!to_stdout && std::fclose(std::exchange(out, stdout)) != 0)) {
      throw std::runtime_error("cannot write " + f.output + ": " + std::strerror(errno));
    }
  } catch (const std::exception& e) {
    if (!to_stdout && out != stdout) {
      std::fclose(out);
      std::remove(f.output.c_str());  // no half-written job file left to run
    }
    std::fprintf(stderr, "tokenbench: error: %s\n", e.what());
    return kExitUsage;
  }
  const std::string where = to_stdout ? "standard output" : f.output;
  std::fprintf(stderr, "tokenbench: %zu jobs, %zu calls written to %s (longest delay %.0f ms",
               jobs.jobs, jobs.calls, where.c_str(), jobs.longest_delay_ms);
  if (jobs.delays_capped > 0) {
    std::fprintf(stderr, "; %zu delays cut to --max-delay-ms", jobs.delays_capped);
  }
  std::fprintf(stderr, ")\n");
  if (jobs.renamed > 0) {
    std::fprintf(stderr, "  %zu jobs renamed NAME#2, NAME#3, ...: their traces' ids came twice\n",
                 jobs.renamed);
  }
  for (const std::string& note : jobs.notes) std::fprintf(stderr, "  %s\n", note.c_str());
  if (where != "standard output") {
    std::fprintf(stderr, "run them: tokenbench run --dataset jobs --dataset-path %s ...\n",
                 where.c_str());
  }
  return kExitOk;
}

}  // namespace

void add_convert_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<ConvertFlags>();
  CLI::App* cmd = app.add_subcommand(
      "convert",
      "Convert published agentic traces (Weka, OpenTelemetry GenAI spans) into a job file for "
      "--dataset jobs");
  cmd->add_option("--from", flags->from,
                  "The traces' format: weka (Weka KV-cache-tester / SemiAnalysis cc-traces, as "
                  "inference-perf and AIPerf replay them) or otel (OpenTelemetry spans with "
                  "gen_ai.* attributes: OTLP JSON, or a document with a spans array)")
      ->required();
  offer_values(cmd->get_option("--from"), {"weka", "otel"});
  cmd->add_option("--output,-o", flags->output,
                  "The job file to write (JSON Lines, one job a line); default: standard output");
  cmd->add_option("--max-delay-ms", flags->max_delay_ms,
                  "Cut every delay between a call and what it waits for to at most this many "
                  "milliseconds (a human's pause in a recorded session); default: as recorded")
      ->check(CLI::Range(0.0, 86.4e6));
  cmd->add_option("traces", flags->inputs,
                  "Trace files, or directories of *.json / *.jsonl trace files")
      ->required();
  cmd->callback([flags, &exit_code] { exit_code = convert_command(*flags); });
}

}  // namespace tokenbench::cli
