#pragma once

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenbench/core/run_config.h"
#include "tokenbench/driver/benchmark.h"
#include "tokenbench/telemetry/environment.h"
#include "tokenbench/tokenizer/tokenizer.h"
#include "tokenbench/workload/workload.h"

namespace tokenbench::measure {

/// What a command's measurements share, resolved once from the user's RunConfig (MLPerf
/// LoadGen's settings apart from the plan): the targets with their credentials, the secrets to
/// cut from everything written, the tokenizer, the dataset pipe's copy and the environment
/// record's facts. The settings stay in the RunConfig; the plan is never written.
struct Plan {
  std::vector<driver::Target> targets;  ///< with credentials; never written
  std::vector<std::string> secrets;     ///< longest first
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  /// A --dataset-path pipe's bytes, read once into a private file ("" when none); the Runner
  /// removes it.
  std::string dataset_copy;
  telemetry::HostFacts host;            ///< the environment record's client facts
  std::vector<nlohmann::json> servers;  ///< what each target said about itself (or null)

  /// Removes every credential this plan knows from `text`.
  std::string redact(std::string text) const;
};

/// Prepares the target(s): resolves credentials (API key variables, user:password@ in URLs),
/// asks every server for GET /v1/models (naming the model when `config` does not) and how it
/// describes itself (not with --no-preflight), loads the tokenizer, keeps a dataset pipe's bytes
/// and raises the open-file limit. Completes `config`: model names filled in, credentials cut out
/// of every URL in it. Throws RunError, also for --gpu-metrics nvidia-smi without nvidia-smi on
/// PATH.
Plan resolve_plan(core::RunConfig& config);

/// Builds the workload of the measurement `config` (from the plan's copy of a dataset pipe, said
/// with the path the user gave). Throws std::runtime_error.
workload::Workload build_workload(const Plan& plan, const core::RunConfig& config);

}  // namespace tokenbench::measure
