// The checks of a run's config that read files or parse with another module's parser; the rest
// is core::validate_run (core/config_check.h).

#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "tokenbench/cli/run_flag_parts.h"
#include "tokenbench/core/file_kind.h"
#include "tokenbench/core/text.h"
#include "tokenbench/experiment/slo_expr.h"
#include "tokenbench/load/think_time.h"
#include "tokenbench/metrics/buckets.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/records/results_dir.h"
#include "tokenbench/report/csv_export.h"
#include "tokenbench/report/html_report.h"
#include "tokenbench/telemetry/environment.h"
#include "tokenbench/workload/length_dist.h"
#include "tokenbench/workload/synthetic_image.h"
#include "tokenbench/workload/synthetic_jobs.h"

namespace tokenbench::cli {
namespace {

// vLLM's --result-filename: a file name inside the results directory, none of tokenbench's own.
void check_result_filename(const std::string& name) {
  if (name.empty()) return;
  const auto fail = [&name](const std::string& why) {
    throw UsageError("--result-filename '" + name + "': " + why +
                     " (e.g. --result-filename vllm-result.json)");
  };
  if (name.find('/') != std::string::npos || name == "." || name == "..") {
    fail("give a file name; the directory is --output-dir");
  }
  for (const char* own : {records::kSummaryFile, records::kRequestsFile, records::kRequestsZstFile,
                          records::kConfigFile, records::kReportFile, records::kTelemetryFile,
                          records::kEnvironmentFile, report::kHtmlReportFile,
                          report::kRequestsCsvFile, report::kLevelsCsvFile}) {
    if (name == own) fail("tokenbench writes that file itself; choose another name");
  }
}

// --dataset-path: a file with something in it, or a pipe (a named pipe, or <(...) as /dev/fd/N),
// which is read once as a stream. Anything else is named for what it is.
void check_dataset_path(const std::string& path) {
  const std::string shown = "--dataset-path '" + core::one_line(path) + "'";
  const core::FileKind kind = core::file_kind(path);
  switch (kind) {
    case core::FileKind::kRegular: {
      std::error_code ec;
      if (std::filesystem::file_size(path, ec) == 0 && !ec) {
        throw UsageError(shown + " is an empty file: a dataset needs at least one prompt");
      }
      return;
    }
    case core::FileKind::kPipe:
      return;
    case core::FileKind::kMissing:
      if (::access(path.c_str(), F_OK) == 0 || errno != ENOENT) {
        throw UsageError(shown + " cannot be read: " + std::strerror(errno));
      }
      throw UsageError("dataset file '" + core::one_line(path) +
                       "' does not exist: check --dataset-path");
    case core::FileKind::kDirectory:
      throw UsageError(shown + " is a directory: give the dataset's file itself");
    default:
      throw UsageError(shown + " is " + core::to_words(kind) +
                       ", not a file or a pipe: give the dataset's file (or a pipe, e.g. "
                       "<(zcat data.jsonl.gz))");
  }
}

// --tokenizer: a path that exists must be a file or a model folder (a device, a pipe or a socket
// is named for what it is); a name that is no path may be a Hugging Face id, looked up later.
void check_tokenizer_path(const std::string& path) {
  if (path.empty()) return;
  const core::FileKind kind = core::file_kind(path);
  if (kind == core::FileKind::kMissing || kind == core::FileKind::kRegular ||
      kind == core::FileKind::kDirectory) {
    return;
  }
  throw UsageError("--tokenizer '" + core::one_line(path) + "' is " + core::to_words(kind) +
                   ", not a file: give tokenizer.json, tokenizer.model, a *.tiktoken file or a "
                   "model folder");
}

// --dataset's name, --input-dist / --output-dist, --image-size and the dataset's file.
void check_dataset_syntax(const core::RunConfig& c) {
  for (const auto& [flag, spec] :
       {std::pair{"--input-dist", c.input_dist}, std::pair{"--output-dist", c.output_dist}}) {
    try {
      workload::parse_length_dist(spec, flag);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  try {
    workload::parse_image_size(c.image_size);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (!c.jobs_spec.empty()) {
    try {
      workload::parse_job_shape(c.jobs_spec);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  } else if (core::reads_file(c.dataset)) {
    check_dataset_path(c.dataset_path);
  }
}

// --buckets, --label, --goodput and --slo.
void check_figure_syntax(const core::RunConfig& c) {
  try {
    for (const auto& b : c.buckets) metrics::parse_bucket_spec(b);
    telemetry::parse_labels(c.labels);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  try {
    metrics::parse_slo(c.goodput);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--goodput: ") + e.what());
  }
  try {
    experiment::parse_slo_exprs(c.slo);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--slo: ") + e.what());
  }
}

}  // namespace

void check_files_and_syntax(const core::RunConfig& c) {
  check_result_filename(c.result_filename);
  check_figure_syntax(c);
  check_dataset_syntax(c);
  check_tokenizer_path(c.tokenizer);
  if (c.multi_turn) {
    try {
      load::parse_think_time(c.think_time);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
}

}  // namespace tokenbench::cli
