#include "tokenbench/experiment/targets.h"

#include <gtest/gtest.h>

namespace tokenbench::experiment {
namespace {

TargetRow row(const std::string& name, double ttft, double tps, double tpot, double err) {
  TargetRow r;
  r.name = name;
  r.figures = {{"median_ttft_ms", ttft}, {"p50_decode_tps", tps}, {"median_tpot_ms", tpot},
               {"error_rate", err},      {"completed", 10},       {"p95_ttft_ms", ttft * 2}};
  return r;
}

TEST(TargetWeights, ParsesAliasesAndFullNames) {
  const auto w = parse_weights(kDefaultWeights);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].figure, "median_ttft_ms");
  EXPECT_EQ(w[1].figure, "p50_decode_tps");
  EXPECT_EQ(w[2].figure, "median_tpot_ms");
  EXPECT_DOUBLE_EQ(w[0].weight, 0.5);
  EXPECT_EQ(parse_weights("p99_e2el_ms=1")[0].figure, "p99_e2el_ms");
  for (const char* bad : {"ttft", "ttft=0", "ttft=-1", "ttft=x", "speed=1", ""}) {
    EXPECT_THROW(parse_weights(bad), std::invalid_argument) << bad;
  }
}

TEST(TargetRanking, EliminatesThenScoresRelativeToTheBest) {
  std::vector<TargetRow> rows{row("a", 200, 40, 25, 0), row("b", 100, 50, 20, 0),
                              row("c", 50, 80, 10, 0.05)};
  const auto ranked =
      rank_targets(rows, parse_slo_exprs({"error_rate<0.01"}), parse_weights(kDefaultWeights));
  EXPECT_TRUE(ranked[2].eliminated);
  EXPECT_EQ(ranked[2].reason, "error_rate 0.05 >= 0.01");
  EXPECT_EQ(ranked[2].rank, 0);
  // b is best on every weighted figure: score 1. a: 0.5 x 100/200 + 0.3 x 40/50 + 0.2 x 20/25.
  EXPECT_DOUBLE_EQ(ranked[1].score, 1.0);
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.5 * 0.5 + 0.3 * 0.8 + 0.2 * 0.8);
  EXPECT_EQ(ranked[1].rank, 1);
  EXPECT_EQ(ranked[0].rank, 2);
  const auto j =
      ranking_to_json(ranked, parse_slo_exprs({"error_rate<0.01"}), parse_weights(kDefaultWeights));
  EXPECT_EQ(j["targets"][2]["reason"], "error_rate 0.05 >= 0.01");
  EXPECT_TRUE(j["targets"][2]["rank"].is_null());
  EXPECT_EQ(j["targets"][1]["rank"], 1);
  EXPECT_DOUBLE_EQ(j["weights"]["median_ttft_ms"].get<double>(), 0.5);
  const std::string table = render_ranking(ranked, parse_weights(kDefaultWeights));
  EXPECT_NE(table.find("  1. b (score 1.000)\n  2. a (score 0.650)\n"), std::string::npos) << table;
  EXPECT_NE(table.find("eliminated: c (error_rate 0.05 >= 0.01)"), std::string::npos) << table;
}

TEST(TargetRanking, UndefinedFigureScoresNothing) {
  std::vector<TargetRow> rows{row("a", 100, 50, 20, 0), row("b", 100, 50, 20, 0)};
  rows[1].figures["p50_decode_tps"] = std::nan("");
  const auto ranked = rank_targets(rows, {}, parse_weights("ttft=1,tps=1"));
  EXPECT_DOUBLE_EQ(ranked[0].score, 1.0);
  EXPECT_DOUBLE_EQ(ranked[1].score, 0.5);
}

TEST(TargetRanking, NoSuccessIsAnElimination) {
  std::vector<TargetRow> rows{row("a", 100, 50, 20, 0), row("b", 100, 50, 20, 1)};
  rows[1].figures["completed"] = 0;
  const auto ranked = rank_targets(rows, {}, parse_weights(kDefaultWeights));
  EXPECT_EQ(ranked[0].rank, 1);
  EXPECT_TRUE(ranked[1].eliminated);
  EXPECT_EQ(ranked[1].reason, "no request succeeded");
}

}  // namespace
}  // namespace tokenbench::experiment
