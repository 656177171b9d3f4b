#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tokenbench::telemetry {

/// The kinds of metric family the Prometheus text format (0.0.4) and OpenMetrics (1.0) declare.
enum class MetricType {
  kUntyped,
  kCounter,
  kGauge,
  kHistogram,
  kSummary,
  kInfo,
  kStateSet,
  kGaugeHistogram,
};

std::string_view to_string(MetricType type);

struct Label {
  std::string name;
  std::string value;  ///< unescaped
  bool operator==(const Label&) const = default;
};

/// One line of an exposition: a series and its value (NaN and +-Inf included). Timestamps and
/// OpenMetrics exemplars are read and dropped: a scrape is stamped by the scraper's own clock.
struct Sample {
  std::string name;  ///< the full sample name (with _bucket, _sum, _count, _total, ...)
  std::vector<Label> labels;
  double value = 0;

  /// The value of label `name`, or nullopt.
  std::optional<std::string_view> label(std::string_view name) const;
};

/// A metric family: its `# TYPE` (untyped when none was declared), `# HELP`, `# UNIT`, and its
/// samples in exposition order.
struct Family {
  std::string name;
  MetricType type = MetricType::kUntyped;
  std::string help;
  std::string unit;
  std::vector<Sample> samples;
};

/// A parsed exposition (one scrape).
struct Exposition {
  std::vector<Family> families;
  bool openmetrics = false;  ///< it ended with `# EOF`
  std::size_t sample_count = 0;

  /// The family named `name`, or nullptr.
  const Family* find(std::string_view name) const;
};

/// Bounds on what one scrape may hold: a hostile or broken endpoint gets a clear error, not the
/// client's memory.
struct ParseLimits {
  std::size_t max_bytes = std::size_t{32} << 20;
  std::size_t max_line_bytes = std::size_t{64} << 10;
  std::size_t max_samples = 200'000;
};

/// A line that breaks the format, or a scrape beyond ParseLimits. what() is one line naming the
/// line number and the problem.
class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parses the Prometheus text exposition format and its OpenMetrics variant: `# HELP` (with \\ and
/// \n escapes), `# TYPE`, `# UNIT`, other comments, samples `name{label="value",...} value
/// [timestamp]` with \\, \" and \n escapes in label values, an optional exemplar after ` # `,
/// and `# EOF` (nothing may follow it). Samples are grouped under the family their name belongs
/// to (`x_bucket`, `x_sum`, `x_count`, `x_created` under histogram or summary `x`; `x_total` under
/// counter `x`; `x_info` under info `x`); a sample of no declared family forms an untyped family
/// of its own. Throws ParseError.
Exposition parse_exposition(std::string_view text, const ParseLimits& limits = {});

/// A histogram's cumulative buckets (upper bound `le` ascending, +Inf last), sum and count, summed
/// over every series of the family that matches `match` (all of them when empty).
struct Histogram {
  std::vector<std::pair<double, double>> buckets;  ///< (le, cumulative count)
  double sum = 0;
  double count = 0;
  bool empty() const { return count <= 0; }
};

/// The histogram of family `name` in `e`, summed over its series whose labels include every label
/// of `match`; nullopt when the family is absent or not a histogram.
std::optional<Histogram> histogram_of(const Exposition& e, std::string_view name,
                                      const std::vector<Label>& match = {});

/// after - before, bucket by bucket (the observations between two scrapes). Buckets only in one of
/// them are taken as 0 in the other; a counter reset (a smaller count after) gives `after`.
Histogram histogram_delta(const Histogram& after, const Histogram& before);

/// The q-quantile (0 < q < 1) estimated from the buckets as Prometheus's histogram_quantile does:
/// linear interpolation inside the bucket that holds the rank, the lower bound of the first bucket
/// taken as 0; the highest finite bound when the rank falls in +Inf. NaN when empty.
double histogram_quantile(const Histogram& h, double q);

/// histogram_quantile where the buckets bound it well: the bucket holding the rank must have a
/// lower bound above 0 and an upper bound at most `max_ratio` times it. NaN otherwise (a first
/// bucket of (0, 300 ms] says nothing about a median of 4 ms).
double bounded_quantile(const Histogram& h, double q, double max_ratio = 3.0);

/// The sum of the values of family `name`'s samples named `sample` (the family name when empty)
/// whose labels include every label of `match`; nullopt when there is no such sample.
std::optional<double> sum_of(const Exposition& e, std::string_view name,
                             std::string_view sample = {}, const std::vector<Label>& match = {});

}  // namespace tokenbench::telemetry
