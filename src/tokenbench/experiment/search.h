#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/run_config.h"
#include "tokenbench/experiment/figures.h"
#include "tokenbench/experiment/runner.h"
#include "tokenbench/experiment/slo_expr.h"

namespace tokenbench::experiment {

/// The file at the root of a search's results directory.
inline constexpr const char* kSearchJson = "search.json";

/// What `tokenbench search` varies, within which bounds, to what precision.
struct SearchOptions {
  enum class Vary { kRequestRate, kMaxConcurrency };
  Vary vary = Vary::kRequestRate;
  std::vector<SloExpr> slos;  ///< at least one
  double min = 1;
  double max = 64;
  double precision = 0.05;  ///< relative width of the final bracket: (hi - lo) / lo
  int repeats = 1;          ///< runs per probed level; the majority decides
  bool resume = false;
};

/// One run at one level.
struct Probe {
  double value = 0;
  int repeat = 0;  ///< 0-based; repeat k uses seed + k
  std::string dir;
  nlohmann::json summary;
  Figures figures;
  std::vector<SloVerdict> slo;
  bool met = false;
  bool complete = false;
};

/// One probed level: its runs and the decision they agreed on.
struct Decision {
  double value = 0;
  int passes = 0;
  int runs = 0;
  bool pass = false;              ///< a strict majority of the runs met every SLO
  double request_throughput = 0;  ///< mean over the runs
};

/// A search's trajectory and answer.
struct SearchResult {
  std::vector<Probe> probes;
  std::vector<Decision> trajectory;  ///< in the order probed
  /// found: the largest passing level `lo` lies below a failing `hi` within the precision;
  /// max_meets: even --max meets every SLO; min_breaks: even --min breaks one; canceled.
  std::string status;
  std::optional<double> lo;  ///< largest level that passed
  std::optional<double> hi;  ///< smallest level that failed
  bool canceled = false;
  /// "DIR: class: message" of the first probe where no request succeeded ("" when none): such a
  /// probe fails for its errors, not its latency.
  std::string no_success;
};

/// Runs one probe (value, repeat). Used by search() so that the algorithm can be tested alone.
using ProbeFn = std::function<Probe(double value, int repeat)>;

/// Finds the largest level meeting every SLO: probes --min (if it fails, the answer is
/// "none"), then brackets by doubling up to --max, then bisects the bracket until
/// (hi - lo) / lo <= precision (for concurrency, also until hi - lo <= 1). Each level runs
/// `repeats` times. Stops early when `canceled` returns true.
SearchResult search(
    const SearchOptions& options, const ProbeFn& probe,
    const std::function<bool()>& canceled = [] { return false; });

/// The probe's subdirectory: "rate-8.5" or "conc-12", with "-rep2" for a later repeat.
std::string probe_dir(const SearchOptions& options, double value, int repeat);

/// Runs a search with `runner`, each probe a complete `tokenbench run` into
/// base.output_dir/probe_dir(...), rewriting search.json after each probe; with resume, probes
/// search.json marks complete are reused.
SearchResult run_search(Runner& runner, const core::RunConfig& base, const SearchOptions& options);

/// search.json: the options, every probe, the trajectory and the answer.
nlohmann::json search_to_json(const SearchResult& result, const SearchOptions& options);

/// The answer in one sentence, e.g. "under p95_ttft_ms<=500 the maximum throughput is 14.2
/// req/s (request rate 15.6/s, within 5%)".
std::string search_sentence(const SearchResult& result, const SearchOptions& options);

/// The trajectory, one line per probed level, and the sentence.
std::string render_search(const SearchResult& result, const SearchOptions& options);

}  // namespace tokenbench::experiment
