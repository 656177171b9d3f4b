#include "tokenbench/history/trend.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tokenbench::history {
namespace {

RunEntry run(std::int64_t id, double ttft, const std::string& engine) {
  RunEntry e;
  e.id = id;
  e.started_at = "2026-12-01T10:00:" + std::string(id < 10 ? "0" : "") + std::to_string(id) + "Z";
  e.identity = "0123456789abcdef";
  e.dir = "/r/" + std::to_string(id);
  e.environment = {{"server.software", engine}, {"host", "node-1"}};
  e.figures = {{"p95_ttft_ms", ttft}, {"output_throughput", 1000 / ttft}};
  return e;
}

// 30 runs: 100 ms, alternating +-1, until the engine upgrade at run 21 makes it 8 % slower.
std::vector<RunEntry> upgraded_at_21() {
  std::vector<RunEntry> runs;
  for (int i = 1; i <= 30; ++i) {
    const double base = i < 21 ? 100 : 108;
    runs.push_back(run(i, base + (i % 2 == 0 ? 1 : -1), i < 21 ? "vllm 0.9.0" : "vllm 0.9.1"));
  }
  return runs;
}

TEST(Trend, NamesTheChangeAndTheEnvironmentThatChangedThere) {
  const Trend t = build_trend(upgraded_at_21(), "p95_ttft_ms", {});
  ASSERT_EQ(t.points.size(), 30u);
  EXPECT_FALSE(t.higher_is_better);
  ASSERT_EQ(t.changes.size(), 1u);
  EXPECT_EQ(t.points[t.changes[0].point.index].ids.front(), 21);
  EXPECT_TRUE(t.changes[0].worse);
  EXPECT_NEAR(t.changes[0].point.mean_before, 100, 1e-9);
  EXPECT_NEAR(t.changes[0].point.mean_after, 108, 1e-9);
  ASSERT_EQ(t.changes[0].changed.size(), 1u);
  EXPECT_EQ(t.changes[0].changed[0].key, "server.software");
  EXPECT_EQ(t.changes[0].changed[0].before, "vllm 0.9.0");
  EXPECT_EQ(t.changes[0].changed[0].after, "vllm 0.9.1");
  EXPECT_TRUE(t.latest_worse);
  const std::string text = render_trend(t);
  EXPECT_NE(text.find("at run 21"), std::string::npos) << text;
  EXPECT_NE(text.find("server.software: vllm 0.9.0 -> vllm 0.9.1"), std::string::npos) << text;
  EXPECT_NE(text.find("+8.0 %, worse"), std::string::npos) << text;
  const auto j = trend_json(t);
  EXPECT_EQ(j["kind"], "trend");
  EXPECT_EQ(j["change_points"][0]["id"], 21);
  EXPECT_EQ(j["points"].size(), 30u);
}

TEST(Trend, DirectionFollowsTheFigure) {
  // Throughput fell at the same run: worse, because higher is better there.
  const Trend t = build_trend(upgraded_at_21(), "output_throughput", {});
  EXPECT_TRUE(t.higher_is_better);
  ASSERT_EQ(t.changes.size(), 1u);
  EXPECT_TRUE(t.changes[0].worse);
  // A recovery after the regression: the latest segment is better than the one before.
  auto runs = upgraded_at_21();
  for (int i = 31; i <= 40; ++i) runs.push_back(run(i, 100 + (i % 2 == 0 ? 1 : -1), "vllm 0.9.2"));
  const Trend back = build_trend(runs, "p95_ttft_ms", {});
  ASSERT_EQ(back.changes.size(), 2u);
  EXPECT_FALSE(back.changes[1].worse);
  EXPECT_FALSE(back.latest_worse);
}

TEST(Trend, RepeatsBecomeOnePointWithAnInterval) {
  std::vector<RunEntry> runs;
  for (int i = 1; i <= 3; ++i) {
    RunEntry r = run(i, 100 + i, "e");
    r.repeat_of = "/r/nightly";
    runs.push_back(r);
  }
  RunEntry plain = run(4, 50, "e");
  plain.figures.erase("p95_ttft_ms");  // a run without the figure is left out, and counted
  runs.push_back(plain);
  const Trend t = build_trend(runs, "p95_ttft_ms", {});
  ASSERT_EQ(t.points.size(), 1u);
  EXPECT_EQ(t.points[0].ids, (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(t.points[0].dir, "/r/nightly");
  EXPECT_DOUBLE_EQ(t.points[0].value, 102);
  ASSERT_TRUE(t.points[0].interval.has_value());
  // mean 102, sd 1, t(2, 0.975) = 4.303: 102 +- 4.303 / sqrt(3).
  EXPECT_NEAR(t.points[0].interval->hi - 102, 4.303 / std::sqrt(3.0), 1e-3);
  EXPECT_EQ(t.skipped, 1u);
  EXPECT_TRUE(t.changes.empty());
}

TEST(Trend, EnvironmentChangesIncludeLabels) {
  RunEntry a = run(1, 1, "e");
  RunEntry b = run(2, 1, "e");
  a.labels["driver"] = "550";
  b.labels["driver"] = "555";
  b.environment["gpus.count"] = "8";
  const auto c = environment_changes(a, b);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].key, "gpus.count");
  EXPECT_EQ(c[0].before, "");
  EXPECT_EQ(c[1].key, "label.driver");
}

}  // namespace
}  // namespace tokenbench::history
