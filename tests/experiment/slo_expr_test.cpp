#include "tokenbench/experiment/slo_expr.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tokenbench/core/request.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/report/summary_json.h"

namespace tokenbench::experiment {
namespace {

TEST(SloExpr, ParsesEveryOperator) {
  auto e = parse_slo_expr("p95_ttft_ms<=500");
  EXPECT_EQ(e.figure, "p95_ttft_ms");
  EXPECT_EQ(e.op, SloExpr::Op::kLessEqual);
  EXPECT_EQ(e.bound, 500);
  EXPECT_EQ(e.text(), "p95_ttft_ms<=500");
  EXPECT_EQ(parse_slo_expr(" error_rate < 0.01 ").op, SloExpr::Op::kLess);
  EXPECT_EQ(parse_slo_expr("error_rate < 0.01").bound, 0.01);
  EXPECT_EQ(parse_slo_expr("request_throughput>10").op, SloExpr::Op::kGreater);
  EXPECT_EQ(parse_slo_expr("p50_decode_tps>=30").op, SloExpr::Op::kGreaterEqual);
}

TEST(SloExpr, HoldsAtTheBoundAsItsOperatorSays) {
  EXPECT_TRUE(parse_slo_expr("p95_ttft_ms<=500").holds(500));
  EXPECT_FALSE(parse_slo_expr("p95_ttft_ms<500").holds(500));
  EXPECT_TRUE(parse_slo_expr("p95_ttft_ms<500").holds(499.9));
  EXPECT_TRUE(parse_slo_expr("p50_decode_tps>=30").holds(30));
  EXPECT_FALSE(parse_slo_expr("p50_decode_tps>30").holds(30));
  EXPECT_FALSE(parse_slo_expr("p95_ttft_ms<=500").holds(std::nan("")));
}

TEST(SloExpr, RejectsBadTextWithOneLine) {
  for (const char* bad : {"p95_ttft_ms=500", "p95_ttfx_ms<=500", "p95_ttft_ms<=fast",
                          "p95_ttft_ms<=", "<=5", "p95_ttft_ms<=inf"}) {
    try {
      parse_slo_expr(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  try {
    parse_slo_expr("p95_ttfx_ms<=5");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("p95_ttft_ms"), std::string::npos) << e.what();
  }
}

TEST(SloExpr, AcceptsAnyPercentileOfADistribution) {
  EXPECT_EQ(parse_slo_expr("p99.9_ttft_ms<=500").figure, "p99.9_ttft_ms");
  EXPECT_EQ(parse_slo_expr("p12_decode_tps>=5").figure, "p12_decode_tps");
  EXPECT_THROW(parse_slo_expr("p100_ttft_ms<=5"), std::invalid_argument);
  EXPECT_THROW(parse_slo_expr("p99.9_latency_ms<=5"), std::invalid_argument);
  EXPECT_THROW(parse_slo_expr("px_ttft_ms<=5"), std::invalid_argument);
}

TEST(SloExpr, ListsSplitOnCommas) {
  const auto v = parse_slo_exprs({"p95_ttft_ms<=500,p95_tpot_ms<=100", "error_rate<0.01"});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[1].figure, "p95_tpot_ms");
  EXPECT_EQ(v[2].figure, "error_rate");
}

TEST(SloExpr, ChecksAgainstARealSummary) {
  // Three requests: two fine, one failed (error rate 1/3).
  std::vector<core::RequestRecord> records(3);
  for (int i = 0; i < 3; ++i) {
    auto& r = records[i];
    r.id = i;
    r.scheduled = r.sent = i * 1'000'000;
    r.first_token = r.sent + (i + 1) * 100'000'000;  // TTFT 100, 200, 300 ms
    r.chunks = {{r.first_token, 1}, {r.first_token + 10'000'000, 1}};
    r.last_token = r.done = r.first_token + 10'000'000;
    r.output_tokens = 2;
  }
  records[2].error = core::ErrorClass::kHttp5xx;
  const auto summary = metrics::summarize(records, {});
  const Figures f = figures_from_summary(report::summary_to_json(summary, core::RunConfig{}));
  EXPECT_DOUBLE_EQ(f.at("error_rate"), 1.0 / 3);
  EXPECT_DOUBLE_EQ(f.at("mean_ttft_ms"), 150);
  EXPECT_DOUBLE_EQ(f.at("median_ttft_ms"), 150);
  EXPECT_TRUE(f.contains("p50_decode_tps"));
  EXPECT_TRUE(f.contains("p99_queue_time_ms"));
  const auto verdicts = check_slos(parse_slo_exprs({"mean_ttft_ms<=150", "error_rate<0.1"}), f);
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_TRUE(verdicts[0].met);
  EXPECT_FALSE(verdicts[1].met);
  EXPECT_FALSE(all_met(verdicts));
  EXPECT_EQ(first_breach(verdicts), "error_rate 0.3333 >= 0.1");
}

TEST(Figures, DirectionAndAliases) {
  EXPECT_TRUE(higher_is_better("request_throughput"));
  EXPECT_TRUE(higher_is_better("p50_decode_tps"));
  EXPECT_TRUE(higher_is_better("request_goodput"));
  EXPECT_FALSE(higher_is_better("p95_ttft_ms"));
  EXPECT_FALSE(higher_is_better("error_rate"));
  EXPECT_EQ(expand_figure_alias("ttft"), "median_ttft_ms");
  EXPECT_EQ(expand_figure_alias("tps"), "p50_decode_tps");
  EXPECT_EQ(expand_figure_alias("p99_itl_ms"), "p99_itl_ms");
  const auto& known = known_figure_names();
  EXPECT_TRUE(std::is_sorted(known.begin(), known.end()));
  for (const char* name : {"completed", "request_throughput", "p99_e2el_ms", "error_rate",
                           "p95_decode_tps", "max_concurrency_observed", "request_goodput"}) {
    EXPECT_TRUE(std::binary_search(known.begin(), known.end(), name)) << name;
  }
}

}  // namespace
}  // namespace tokenbench::experiment
