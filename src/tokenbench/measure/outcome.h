#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "tokenbench/metrics/summary.h"

namespace tokenbench::measure {

/// A failure before anything was measured: a configuration the run cannot use (exit 1), or a
/// server that does not answer (unreachable(): exit 2).
class RunError : public std::runtime_error {
 public:
  RunError(const std::string& message, bool unreachable)
      : std::runtime_error(message), unreachable_(unreachable) {}
  bool unreachable() const { return unreachable_; }

 private:
  bool unreachable_;
};

/// What one measurement wrote into one results directory.
struct LevelResult {
  std::string name;  ///< the target's name in a multi-target run, else ""
  std::string dir;   ///< the results directory (readable by `tokenbench report`)
  metrics::Summary summary;
  nlohmann::json summary_json;  ///< as written to summary.json
  std::string console;          ///< the run's console tables
  /// Why summary.json could not be written (a full disk), "" when it was: the caller prints
  /// summary_json instead and exits cli::kExitNotSaved.
  std::string not_saved;
};

/// One `tokenbench run` measurement: one part per target compared, else one.
struct RunOutcome {
  std::vector<LevelResult> parts;
  bool canceled = false;  ///< interrupted: the parts hold partial results
  /// Why --fail-fast stopped it ("the first 5 requests all failed with HTTP 404: ..."), or "".
  std::string failed_fast;
  /// Why --max-error-rate stopped it ("31 of the last 50 requests failed ..."), or "".
  std::string error_rate_stop;
  /// Why --stop-on-saturation stopped it ("the wait for a first token kept growing: ..."), or "".
  std::string saturation_stop;
  /// A distributed run lost (part of) some rank's share: summary.json's
  /// tokenbench.distributed.missing says what.
  bool partial = false;
};

}  // namespace tokenbench::measure
