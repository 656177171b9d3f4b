#pragma once

#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/run_config.h"
#include "tokenbench/experiment/figures.h"
#include "tokenbench/experiment/runner.h"
#include "tokenbench/experiment/slo_expr.h"
#include "tokenbench/metrics/intervals.h"

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
  /// Which passing level is the answer: the highest request throughput, or the lowest cost per
  /// 1M output tokens (--objective cost, with --gpu-hour-price).
  enum class Objective { kThroughput, kCost };
  Objective objective = Objective::kThroughput;
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
  /// The 95% intervals of its request throughput (batch means over the measure phase) and, in
  /// the order of `slo`, of each SLO's figure when it is a percentile of TTFT, TPOT or E2EL
  /// (order statistics); nullopt where none could be had.
  std::optional<metrics::Interval> throughput_ci;
  std::vector<std::optional<metrics::Interval>> slo_ci;
};

/// One probed level: its runs and the decision they agreed on.
struct Decision {
  double value = 0;
  int passes = 0;
  int runs = 0;
  /// Repeated runs: every SLO's interval over them lies wholly where the SLO holds; a single run
  /// (or an SLO figure some run lacks): a strict majority of the runs met every SLO.
  bool pass = false;
  bool by_interval = false;       ///< `pass` was judged on the intervals
  double request_throughput = 0;  ///< mean over the runs
  double usd_per_million_output_tokens = std::numeric_limits<double>::quiet_NaN();  ///< mean
  /// 95% intervals: of the throughput and of each SLO's figure (in the order of the options'
  /// slos); over the runs' values when repeated, else the one run's own.
  std::optional<metrics::Interval> throughput_ci;
  std::vector<std::optional<metrics::Interval>> slo_ci;
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
  /// The answer: the passing level with the highest request throughput (or the lowest cost,
  /// --objective cost). Past the knee a
  /// server's throughput falls as load grows while the SLOs may still hold, so it can lie below
  /// `lo`.
  std::optional<double> best;
  /// Throughput fell between passing levels: `best` lies below `lo`, and the levels around it
  /// were probed to find the peak.
  bool fell = false;
  /// Where the probes' figures are too few to tell neighbouring levels apart, or a verdict from
  /// noise: one sentence each, with what to do (--repeats, longer probes).
  std::vector<std::string> warnings;
  bool canceled = false;
  std::string interrupted;  ///< what stopped the search midway (Runner::interruption()), or ""
  /// "DIR: class: message" of the first probe where no request succeeded ("" when none): such a
  /// probe fails for its errors, not its latency.
  std::string no_success;
  /// Why a probe's summary.json or search.json could not be written (a full disk), the first;
  /// "" when all were. The CLI then prints search.json's document and exits 6.
  std::string not_saved;
};

/// The most levels probed around a throughput peak after the bisection.
inline constexpr int kPeakProbes = 8;

/// Runs one probe (value, repeat). Used by search() so that the algorithm can be tested alone.
using ProbeFn = std::function<Probe(double value, int repeat)>;

/// Finds the level of highest throughput meeting every SLO. Probes --min (if it fails, the
/// answer is "none"), then brackets the largest passing level by doubling up to --max, then
/// bisects the bracket until (hi - lo) / lo <= precision (for concurrency, also until
/// hi - lo <= 1). When throughput fell between passing levels, probes the midpoints around the
/// peak to the same precision (at most kPeakProbes more levels). Each level runs `repeats`
/// times. Stops early when `canceled` returns true.
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
/// req/s at request rate 15.6/s, the largest load meeting them (within 5%: 16.4/s breaks it)".
std::string search_sentence(const SearchResult& result, const SearchOptions& options);

/// The trajectory, one line per probed level, the sentence, and the warnings.
std::string render_search(const SearchResult& result, const SearchOptions& options);

}  // namespace tokenbench::experiment
