// --repeats: the summary of repeated runs (each figure's mean and Student's t interval) and
// groups of runs compared by the spread between them (Welch's t).

#include "tokenbench/experiment/repeats.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tokenbench/experiment/compare.h"

namespace tokenbench::experiment {
namespace {

using nlohmann::json;

TEST(Repeats, EachNumberBecomesTheRunsMeanWithItsInterval) {
  const std::vector<json> runs = {
      {{"request_throughput", 10.0}, {"p95_ttft_ms", 100.0}, {"model_id", "m"}, {"completed", 20}},
      {{"request_throughput", 12.0}, {"p95_ttft_ms", 110.0}, {"model_id", "m"}, {"completed", 20}},
      {{"request_throughput", 14.0}, {"p95_ttft_ms", 90.0}, {"model_id", "m"}, {"completed", 20}}};
  const json s = summary_of_repeats(runs, {"repeat-1", "repeat-2", "repeat-3"}, {7, 8, 9});
  EXPECT_DOUBLE_EQ(s["request_throughput"].get<double>(), 12.0);
  EXPECT_DOUBLE_EQ(s["p95_ttft_ms"].get<double>(), 100.0);
  EXPECT_EQ(s["model_id"], "m");
  EXPECT_DOUBLE_EQ(s["completed"].get<double>(), 20.0);
  const json& r = s["tokenbench"]["repeats"];
  EXPECT_EQ(r["n"], 3);
  EXPECT_EQ(r["seeds"], json({7, 8, 9}));
  // sd 2, t(2) = 4.303: 12 +- 4.303 x 2 / sqrt(3) = 12 +- 4.969
  const json& x = r["figures"]["request_throughput"];
  EXPECT_DOUBLE_EQ(x["stddev"].get<double>(), 2.0);
  EXPECT_NEAR(x["half_width"].get<double>(), 4.303 * 2 / std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(x["lo"].get<double>(), 12 - 4.303 * 2 / std::sqrt(3.0), 1e-12);
  EXPECT_EQ(x["values"], json({10.0, 12.0, 14.0}));
  const auto ci = repeat_interval(s, "request_throughput");
  ASSERT_TRUE(ci.has_value());
  EXPECT_TRUE(ci->contains(12.0));
  EXPECT_EQ(with_interval(s, "request_throughput", "{:.1f}"), "12.0 ± 5.0");
  EXPECT_EQ(with_interval(s, "model_id", "{:.1f}"), "-");
  EXPECT_EQ(with_interval(json{{"x", 3.0}}, "x", "{:.1f}"), "3.0");  // not repeated
  EXPECT_NE(render_repeats(s).find("12.00 ± 4.97"), std::string::npos) << render_repeats(s);
}

TEST(Repeats, DistributionStatisticsAreAveragedToo) {
  const auto run = [](double median, double p90) {
    return json{{"tokenbench",
                 {{"distributions",
                   {{"decode_tps", {{"median", median}, {"percentiles", {{"p90", p90}}}}}}}}}};
  };
  const json s = summary_of_repeats({run(100, 150), run(110, 170)}, {"a", "b"}, {0, 1});
  const json& d = s["tokenbench"]["distributions"]["decode_tps"];
  EXPECT_DOUBLE_EQ(d["median"].get<double>(), 105.0);
  EXPECT_DOUBLE_EQ(d["percentiles"]["p90"].get<double>(), 160.0);
  const auto ci = repeat_interval(s, "median_decode_tps");
  ASSERT_TRUE(ci.has_value());
  EXPECT_DOUBLE_EQ(ci->estimate, 105.0);
  EXPECT_TRUE(repeat_interval(s, "p90_decode_tps").has_value());
}

TEST(Repeats, OneRunHasNoInterval) {
  const json s = summary_of_repeats({{{"request_throughput", 10.0}}}, {"repeat-1"}, {1});
  EXPECT_TRUE(s["tokenbench"]["repeats"]["figures"]["request_throughput"]["lo"].is_null());
  EXPECT_FALSE(repeat_interval(s, "request_throughput").has_value());
  EXPECT_EQ(with_interval(s, "request_throughput", "{:.1f}"), "10.0");
}

// Welch's t on hand-made groups: BASE 10, 12, 14 (mean 12, var 4), NEW 15, 16, 17 (mean 16,
// var 1). se = sqrt(4/3 + 1/3) = 1.2910; df = (5/3)^2 / ((4/3)^2/2 + (1/3)^2/2) = 2.9412.
TEST(CompareGroups, WelchIntervalOverTheRuns) {
  RunGroup base, next;
  for (const double x : {10.0, 12.0, 14.0}) {
    base.dirs.push_back("b");
    base.summaries.push_back({{"request_throughput", x}, {"completed", 10}, {"failed", 0}});
  }
  for (const double x : {15.0, 16.0, 17.0}) {
    next.dirs.push_back("n");
    next.summaries.push_back({{"request_throughput", x}, {"completed", 9}, {"failed", 1}});
  }
  CompareOptions options;
  options.confidence = 0.95;
  const Comparison c = compare_groups(base, next, options);
  EXPECT_EQ(c.base_runs, 3u);
  EXPECT_EQ(c.new_measured, 30);
  EXPECT_EQ(c.new_failed, 3);
  const FigureComparison* f = c.find("request_throughput");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->delta, 4.0);
  EXPECT_EQ(f->interval, IntervalMethod::kRunLevelT);
  // The half-width: t(2.9412) at 1 - 0.05 / 20 / 2 times 1.2910; that quantile lies between
  // t(3)'s 7.453 and t(2)'s 14.089 at 0.99875.
  const double half = f->ci_high - f->delta;
  EXPECT_NEAR(f->delta - f->ci_low, half, 1e-9);
  EXPECT_GT(half, 7.453 * 1.2910);
  EXPECT_LT(half, 14.089 * 1.2910);
  EXPECT_EQ(f->verdict, Verdict::kNoChange);  // 4 +- > 9.6 holds zero
  // The error rate is derived from each run's counts.
  const FigureComparison* e = c.find("error_rate");
  ASSERT_NE(e, nullptr);
  EXPECT_NEAR(e->next, 0.1, 1e-12);
  // A figure no run has, or one run per side: no interval.
  EXPECT_EQ(c.find("p99_ttft_ms")->interval, IntervalMethod::kNone);
}

}  // namespace
}  // namespace tokenbench::experiment
