#include "tokenbench/experiment/sweep.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tokenbench::experiment {
namespace {

Figures level(double req_s, double p95_e2el_ms, double goodput = std::nan("")) {
  return Figures{{"request_throughput", req_s},
                 {"p95_e2el_ms", p95_e2el_ms},
                 {"request_goodput", goodput},
                 {"completed", 10},
                 {"failed", 0},
                 {"error_rate", 0}};
}

TEST(SweepLevels, AscendingUniqueAndNamedByWhatVaries) {
  auto levels = sweep_levels({32, 1, 8, 8, 0}, {INFINITY});
  ASSERT_EQ(levels.size(), 4u);
  EXPECT_EQ(levels[0].max_concurrency, 1);
  EXPECT_EQ(levels[0].dir, "c1");
  EXPECT_EQ(levels[2].dir, "c32");
  EXPECT_EQ(levels[3].dir, "cunlimited");  // 0 is the highest load
  levels = sweep_levels({0}, {4, 0.5, 2});
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].dir, "r0.5");
  EXPECT_EQ(levels[2].dir, "r4");
  EXPECT_EQ(levels[2].request_rate, 4);
  levels = sweep_levels({4, 8}, {1, 2});
  ASSERT_EQ(levels.size(), 4u);
  EXPECT_EQ(levels[0].dir, "c4-r1");
  EXPECT_EQ(levels[1].dir, "c8-r1");
  EXPECT_EQ(levels[3].dir, "c8-r2");
}

TEST(SweepKnee, LastLevelReachedThroughWorthwhileSteps) {
  // 1 -> 8: +600% req/s for +20% latency; 8 -> 16: +50% for +30%; 16 -> 32: +20% for +60%.
  const std::vector<Figures> curve{level(1, 100), level(7, 120), level(10.5, 156),
                                   level(12.6, 249.6), level(11, 600)};
  EXPECT_EQ(find_knee(curve, 1.0), 2u);
  // A laxer threshold accepts the 16 -> 32 step (20% >= 0.3 x 60%).
  EXPECT_EQ(find_knee(curve, 0.3), 3u);
  // A stricter one stops after the first step (50% < 2 x 30%).
  EXPECT_EQ(find_knee(curve, 2.0), 1u);
  // Falling throughput is never worth it, whatever the threshold.
  EXPECT_EQ(find_knee(curve, 0.0), 3u);
  EXPECT_FALSE(find_knee({level(1, 100)}, 1.0).has_value());
  EXPECT_FALSE(find_knee({level(std::nan(""), 100), level(2, 100)}, 1.0).has_value());
}

TEST(SweepBest, MostThroughputOrGoodputAmongLevelsMeetingTheSlos) {
  std::vector<SweepPoint> points(3);
  points[0].figures = level(5, 100, 5);
  points[1].figures = level(9, 200, 4);
  points[2].figures = level(12, 900, 1);
  for (auto& p : points) p.complete = true;
  points[2].meets_slo = false;
  EXPECT_EQ(find_best(points, false), 1u);
  EXPECT_EQ(find_best(points, true), 0u);
  points[1].complete = false;  // an interrupted level never counts
  EXPECT_EQ(find_best(points, false), 0u);
  for (auto& p : points) p.meets_slo = false;
  EXPECT_FALSE(find_best(points, false).has_value());
}

TEST(SweepOutputs, CsvAndJsonCarryEveryLevelAndTheReadings) {
  SweepResult r;
  for (int c : {1, 8}) {
    SweepPoint p;
    p.level = {c, INFINITY, "c" + std::to_string(c)};
    p.figures = level(c, 100 + c);
    p.summary = {{"completed", 10}, {"request_throughput", c}};
    p.complete = true;
    r.points.push_back(p);
  }
  r.knee = 1;
  SweepOptions options;
  options.slos = parse_slo_exprs({"p95_e2el_ms<=200"});
  r.best = 1;
  const std::string csv = sweep_to_csv(r);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "max_concurrency,request_rate,dir,complete,completed,failed,error_rate,"
            "request_throughput,output_throughput,request_goodput,p50_ttft_ms,p95_ttft_ms,"
            "p99_ttft_ms,p95_tpot_ms,p95_itl_ms,p95_e2el_ms,usd_per_million_output_tokens,"
            "usd_per_million_total_tokens,usd_per_request,meets_slo,knee,best,pareto");
  EXPECT_NE(csv.find("\n8,inf,c8,true,10,0,0,8,,,,,,,,108,,,,true,true,true,false\n"),
            std::string::npos)
      << csv;
  const auto j = sweep_to_json(r, options);
  ASSERT_EQ(j["levels"].size(), 2u);
  EXPECT_EQ(j["levels"][1]["completed"], 10);
  EXPECT_EQ(j["levels"][1]["max_concurrency"], 8);
  EXPECT_EQ(j["levels"][1]["request_rate"], "inf");
  EXPECT_EQ(j["knee"]["dir"], "c8");
  EXPECT_EQ(j["best"]["index"], 1);
  EXPECT_EQ(j["slo"][0], "p95_e2el_ms<=200");
  const std::string table = render_sweep(r, options);
  EXPECT_NE(table.find("<- knee  <- best under SLO"), std::string::npos) << table;
  EXPECT_NE(table.find("Best under SLO (p95_e2el_ms<=200): 8 (8.00 req/s)"), std::string::npos)
      << table;
}

// Issue 32: a level whose verdict was client-bound is marked, in the table and in sweep.json,
// and a knee or best level that was says its figures may be the client's.
TEST(SweepOutputs, ClientBoundLevelsAreMarkedAndTheKneeSaysSo) {
  SweepResult r;
  for (int c : {1, 8, 64}) {
    SweepPoint p;
    p.level = {c, INFINITY, "c" + std::to_string(c)};
    p.figures = level(c, 100 + c);
    p.summary = {{"completed", 10},
                 {"tokenbench", {{"verdict", {{"bound", c == 1 ? "healthy" : "client-bound"}}}}}};
    p.complete = true;
    r.points.push_back(p);
  }
  r.knee = 1;
  EXPECT_FALSE(client_bound(r.points[0]));
  EXPECT_TRUE(client_bound(r.points[1]));
  const std::string table = render_sweep(r, SweepOptions{});
  EXPECT_NE(table.find("<- knee  (client-bound)"), std::string::npos) << table;
  EXPECT_NE(table.find("Client-bound: 8, 64: the client, not the server, held these levels back"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("The knee (8) was client-bound: it may be the client's, not the server's."),
            std::string::npos)
      << table;
  const auto j = sweep_to_json(r, SweepOptions{});
  EXPECT_EQ(j["levels"][0]["client_bound"], false);
  EXPECT_EQ(j["levels"][2]["client_bound"], true);
  // A level without a verdict (an older summary) is not client-bound.
  r.points[1].summary = {{"completed", 10}};
  EXPECT_EQ(render_sweep(r, SweepOptions{}).find("The knee (8)"), std::string::npos);
}

TEST(SweepOutputs, AnInterruptedLevelIsMarkedAndNotReadAsAFall) {
  SweepResult r;
  for (int c : {1, 2}) {
    SweepPoint p;
    p.level = {c, INFINITY, "c" + std::to_string(c)};
    p.figures = level(c, 100);
    p.complete = c == 1;
    r.points.push_back(p);
  }
  r.knee = 0;
  const std::string table = render_sweep(r, SweepOptions{});
  EXPECT_NE(table.find("(interrupted)"), std::string::npos) << table;
  EXPECT_NE(table.find("the sweep was interrupted at the next level"), std::string::npos) << table;
  EXPECT_EQ(table.find("best under SLO"), std::string::npos) << table;
}

}  // namespace
}  // namespace tokenbench::experiment
