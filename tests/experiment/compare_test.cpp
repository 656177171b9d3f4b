#include "tokenbench/experiment/compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../metrics/test_records.h"
#include "tokenbench/experiment/compare_bootstrap.h"
#include "tokenbench/metrics/request_metrics.h"
#include "tokenbench/metrics/summary.h"
#include "tokenbench/records/records_io.h"

namespace tokenbench::experiment {
namespace {

using metrics::is_defined;
using test_records::kMs;

constexpr int kOutputTokens = 16;

/// A run of `n` streamed requests sent 25 ms apart, each with a lognormal TTFT (median
/// `ttft_ms`) and kOutputTokens single-token chunks spaced by lognormal gaps (median `itl_ms`),
/// every gap multiplied by `scale`. The draws depend only on `seed`, so equal seeds with scales
/// 1 and 1.15 give the same run with every stamp gap 15% longer.
RunSample lognormal_run(std::uint64_t seed, int n, double scale = 1.0, double sigma = 0.25,
                        double ttft_ms = 50.0, double itl_ms = 10.0) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> ttft(std::log(ttft_ms), sigma);
  std::lognormal_distribution<double> itl(std::log(itl_ms), sigma);
  RunSample run;
  run.dir = "run-" + std::to_string(seed);
  for (int i = 0; i < n; ++i) {
    const double sent = 25.0 * i;
    double t = sent + scale * ttft(rng);
    std::vector<std::pair<double, int>> chunks;
    for (int k = 0; k < kOutputTokens; ++k) {
      if (k > 0) t += scale * itl(rng);
      chunks.emplace_back(t, 1);
    }
    run.records.push_back(test_records::streamed_record(static_cast<std::uint64_t>(i), sent, sent,
                                                        chunks, t + 1, 32));
  }
  run.request_throughput = 40.0 / scale;
  run.output_throughput = 40.0 * kOutputTokens / scale;
  run.total_token_throughput = 40.0 * (32 + kOutputTokens) / scale;
  return run;
}

CompareOptions fast_options() {
  CompareOptions options;
  options.resamples = 2000;
  return options;
}

const FigureComparison& figure(const Comparison& c, std::string_view name) {
  const FigureComparison* f = c.find(name);
  if (f == nullptr) throw std::logic_error("no figure " + std::string(name));
  return *f;
}

TEST(CompareTest, FiguresAreTheSummaryKeysWithDirections) {
  std::vector<std::string> names;
  for (const FigureSpec& f : compared_figures()) names.emplace_back(f.name);
  const std::vector<std::string> expected{"mean_ttft_ms",
                                          "p50_ttft_ms",
                                          "p95_ttft_ms",
                                          "p99_ttft_ms",
                                          "mean_tpot_ms",
                                          "p50_tpot_ms",
                                          "p95_tpot_ms",
                                          "mean_itl_ms",
                                          "p50_itl_ms",
                                          "p95_itl_ms",
                                          "mean_e2el_ms",
                                          "p50_e2el_ms",
                                          "p95_e2el_ms",
                                          "p99_e2el_ms",
                                          "p50_decode_tps",
                                          "error_rate",
                                          "request_throughput",
                                          "output_throughput",
                                          "total_token_throughput",
                                          "request_goodput"};
  EXPECT_EQ(names, expected);
  for (const FigureSpec& f : compared_figures()) {
    const bool run_level = f.name.find("throughput") != std::string_view::npos ||
                           f.name.find("goodput") != std::string_view::npos;
    const bool rate = run_level || f.name.find("tps") != std::string_view::npos;
    EXPECT_EQ(f.direction, rate ? Direction::kHigherIsBetter : Direction::kLowerIsBetter) << f.name;
    EXPECT_EQ(f.per_request, !run_level) << f.name;
  }
}

TEST(CompareTest, PointValuesAreTheSummaryFigures) {
  const RunSample run = lognormal_run(7, 120);
  const Comparison c = compare_runs(run, run, fast_options());
  const metrics::Summary s = metrics::summarize(run.records, metrics::SummaryOptions{});
  EXPECT_DOUBLE_EQ(figure(c, "mean_ttft_ms").base, s.ttft_ms.mean);
  EXPECT_DOUBLE_EQ(figure(c, "p99_ttft_ms").base, s.ttft_ms.at(99));
  EXPECT_DOUBLE_EQ(figure(c, "p95_tpot_ms").base, s.tpot_ms.at(95));
  EXPECT_DOUBLE_EQ(figure(c, "mean_itl_ms").base, s.itl_ms.mean);
  EXPECT_DOUBLE_EQ(figure(c, "p95_itl_ms").base, s.itl_ms.at(95));
  EXPECT_DOUBLE_EQ(figure(c, "p99_e2el_ms").base, s.e2el_ms.at(99));
  EXPECT_DOUBLE_EQ(figure(c, "p50_decode_tps").base, s.decode_tps.median);
  EXPECT_DOUBLE_EQ(figure(c, "error_rate").base, 0.0);
  EXPECT_DOUBLE_EQ(figure(c, "request_throughput").base, run.request_throughput);
}

TEST(CompareTest, IdenticalSamplesShowNoChange) {
  const RunSample run = lognormal_run(1, 200);
  const Comparison c = compare_runs(run, run, fast_options());
  ASSERT_EQ(c.figures.size(), compared_figures().size());
  for (const FigureComparison& f : c.figures) {
    if (f.name == "request_goodput") {  // no --goodput: undefined
      EXPECT_EQ(f.verdict, Verdict::kNotApplicable) << f.name;
      EXPECT_FALSE(is_defined(f.delta)) << f.name;
      EXPECT_FALSE(is_defined(f.ci_low)) << f.name;
      continue;
    }
    EXPECT_EQ(f.delta, 0.0) << f.name;
    EXPECT_EQ(f.delta_pct, 0.0) << f.name;
    if (f.name.rfind("p99_", 0) == 0) {
      // A p99 of 200 requests has 2 values beyond it, too few for the bootstrap: its
      // order-statistic interval has no upper bound in either run, so it holds everything.
      EXPECT_EQ(f.interval, IntervalMethod::kOrderStatistics) << f.name;
      EXPECT_EQ(f.verdict, Verdict::kNoChange) << f.name;
      EXPECT_TRUE(std::isinf(f.ci_low) && f.ci_low < 0) << f.name;
      EXPECT_TRUE(std::isinf(f.ci_high) && f.ci_high > 0) << f.name;
    } else {
      EXPECT_EQ(f.interval, f.name.find("throughput") != std::string::npos
                                ? IntervalMethod::kWindowBootstrap
                                : IntervalMethod::kBlockBootstrap)
          << f.name;
      EXPECT_EQ(f.verdict, Verdict::kNoChange) << f.name;
      EXPECT_LE(f.ci_low, 0.0) << f.name;
      EXPECT_GE(f.ci_high, 0.0) << f.name;
    }
  }
  EXPECT_EQ(overall_verdict_line(c), "run-1 vs run-1: no significant change");
}

TEST(CompareTest, PlantedSlowdownIsWorse) {
  // 800 requests: enough for a p95 to show a 15% change at the family-wise level.
  const RunSample base = lognormal_run(3, 800);
  const RunSample slow = lognormal_run(3, 800, 1.15);
  const Comparison c = compare_runs(base, slow, fast_options());
  for (const char* name :
       {"mean_ttft_ms", "p50_ttft_ms", "p95_ttft_ms", "mean_tpot_ms", "p50_tpot_ms", "mean_itl_ms",
        "p50_itl_ms", "mean_e2el_ms", "p50_e2el_ms", "p95_e2el_ms"}) {
    const FigureComparison& f = figure(c, name);
    EXPECT_EQ(f.verdict, Verdict::kWorse) << name;
    EXPECT_NEAR(f.delta_pct, 15.0, 0.1) << name;
    EXPECT_GT(f.ci_low, 0.0) << name;
    EXPECT_LT(f.ci_low_pct, 15.0) << name;
    EXPECT_GT(f.ci_high_pct, 15.0) << name;
  }
  EXPECT_EQ(figure(c, "p50_decode_tps").verdict, Verdict::kWorse);
  EXPECT_NEAR(figure(c, "p50_decode_tps").delta_pct, 100.0 * (1 / 1.15 - 1), 0.1);
  EXPECT_EQ(figure(c, "error_rate").verdict, Verdict::kNoChange);
  EXPECT_NEAR(figure(c, "request_throughput").delta_pct, 100.0 * (1 / 1.15 - 1), 1e-9);
  const std::string line = overall_verdict_line(c);
  EXPECT_EQ(line.rfind("run-3 vs run-3: worse in mean_ttft_ms (+15.0%, CI +", 0), 0u) << line;
  EXPECT_EQ(line.find("better"), std::string::npos) << line;
}

TEST(CompareTest, SlowdownBetweenIndependentSamplesIsWorseNearItsSize) {
  const Comparison c = compare_runs(lognormal_run(10, 200, 1.0, 0.1),
                                    lognormal_run(11, 200, 1.15, 0.1), fast_options());
  for (const char* name : {"mean_ttft_ms", "p50_ttft_ms", "mean_tpot_ms", "mean_e2el_ms"}) {
    const FigureComparison& f = figure(c, name);
    EXPECT_EQ(f.verdict, Verdict::kWorse) << name;
    EXPECT_NEAR(f.delta_pct, 15.0, 4.0) << name;
    EXPECT_GT(f.ci_low, 0.0) << name;
  }
}

TEST(CompareTest, PlantedSpeedupIsBetter) {
  const Comparison c =
      compare_runs(lognormal_run(4, 800), lognormal_run(4, 800, 1 / 1.15), fast_options());
  for (const char* name : {"mean_ttft_ms", "p50_ttft_ms", "p95_ttft_ms", "mean_tpot_ms",
                           "mean_itl_ms", "mean_e2el_ms", "p50_e2el_ms", "p50_decode_tps"}) {
    const FigureComparison& f = figure(c, name);
    EXPECT_EQ(f.verdict, Verdict::kBetter) << name;
  }
  EXPECT_LT(figure(c, "mean_ttft_ms").ci_high, 0.0);
  EXPECT_GT(figure(c, "p50_decode_tps").ci_low, 0.0);
  EXPECT_EQ(overall_verdict_line(c).find("worse"), std::string::npos);
}

TEST(CompareTest, ChangesBelowTheEffectFloorAreNotCalled) {
  // No noise at all: a 1% slowdown has a CI far from zero, yet stays under the 2% floor.
  const RunSample base = lognormal_run(5, 200, 1.0, 1e-6);
  const RunSample slow = lognormal_run(5, 200, 1.01, 1e-6);
  const Comparison c = compare_runs(base, slow, fast_options());
  EXPECT_GT(figure(c, "p95_ttft_ms").ci_low, 0.0);
  EXPECT_EQ(figure(c, "p95_ttft_ms").verdict, Verdict::kNoChange);
  CompareOptions strict = fast_options();
  strict.min_effect = 0.005;
  const Comparison strict_c = compare_runs(base, slow, strict);
  EXPECT_EQ(figure(strict_c, "p95_ttft_ms").verdict, Verdict::kWorse);
}

TEST(CompareTest, BootstrapIsDeterministicForAFixedSeed) {
  const RunSample a = lognormal_run(20, 150);
  const RunSample b = lognormal_run(21, 150);
  CompareOptions options = fast_options();
  const Comparison first = compare_runs(a, b, options);
  const Comparison again = compare_runs(a, b, options);
  options.seed = 99;
  const Comparison other = compare_runs(a, b, options);
  bool any_differs = false;
  for (std::size_t i = 0; i < first.figures.size(); ++i) {
    const FigureComparison& f = first.figures[i];
    if (!is_defined(f.ci_low)) continue;
    EXPECT_EQ(f.ci_low, again.figures[i].ci_low) << f.name;
    EXPECT_EQ(f.ci_high, again.figures[i].ci_high) << f.name;
    EXPECT_EQ(f.delta, other.figures[i].delta) << f.name;
    any_differs = any_differs || f.ci_low != other.figures[i].ci_low;
  }
  EXPECT_TRUE(any_differs);
  EXPECT_EQ(comparison_to_json({first}, fast_options()).dump(),
            comparison_to_json({again}, fast_options()).dump());
}

TEST(CompareTest, SamplesOfOneDistributionRarelyDiffer) {
  // Two samples of 200 requests from one lognormal distribution (sigma 0.1, the spread of a
  // fixed workload on a steady server), ten seed pairs. The intervals are family-wise 95%
  // (Bonferroni over the figures), so a pair shows a change in any figure about 5% of the time
  // at most, and the 2% floor drops some of those: the whole comparison must read "no
  // significant change" on at least 9 of 10 pairs, each figure on at least 9, and at least 98%
  // of all (figure, pair) verdicts must be "~". A bootstrap that ignored one run's noise, or
  // resampled too little, would call changes far more often.
  std::map<std::string, int> unchanged;
  int verdicts = 0;
  int unchanged_verdicts = 0;
  int unchanged_pairs = 0;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    const Comparison c =
        compare_runs(lognormal_run(100 + 2 * seed, 200, 1.0, 0.1),
                     lognormal_run(101 + 2 * seed, 200, 1.0, 0.1), CompareOptions{});
    for (const FigureComparison& f : c.figures) {
      if (f.verdict == Verdict::kNotApplicable) continue;
      const bool called = f.verdict == Verdict::kWorse || f.verdict == Verdict::kBetter;
      unchanged[f.name] += called ? 0 : 1;
      ++verdicts;
      unchanged_verdicts += called ? 0 : 1;
    }
    const std::string line = overall_verdict_line(c);
    unchanged_pairs += line.find("no significant change") != std::string::npos ? 1 : 0;
  }
  for (const auto& [name, count] : unchanged) EXPECT_GE(count, 9) << name;
  EXPECT_GE(100 * unchanged_verdicts, 98 * verdicts);
  EXPECT_GE(unchanged_pairs, 9);
}

TEST(CompareTest, BlockBootstrapWidensTheIntervalForCorrelatedRequests) {
  // The same TTFT values in two orders: drifting in runs of 20 consecutive requests (as a server
  // batch makes them), each run slow or not at random, and shuffled. Blocks keep the runs
  // together, so the interval is wider.
  RunSample drifting = lognormal_run(30, 400, 1.0, 0.05);
  std::mt19937_64 coin(3);
  core::Nanos shift = 0;
  for (std::size_t i = 0; i < drifting.records.size(); ++i) {
    if (i % 20 == 0) shift = static_cast<core::Nanos>(coin() % 2 == 0 ? 0 : 40 * kMs);
    for (auto& chunk : drifting.records[i].chunks) chunk.t += shift;
    drifting.records[i].first_token += shift;
    drifting.records[i].last_token += shift;
    drifting.records[i].done += shift;
  }
  RunSample shuffled = drifting;
  std::mt19937_64 rng(1);
  std::vector<core::Nanos> sent;
  for (const auto& r : shuffled.records) sent.push_back(r.sent);
  std::shuffle(shuffled.records.begin(), shuffled.records.end(), rng);
  for (std::size_t i = 0; i < shuffled.records.size(); ++i) {
    const core::Nanos move = sent[i] - shuffled.records[i].sent;
    core::RequestRecord& r = shuffled.records[i];
    r.scheduled += move;
    r.sent += move;
    r.headers += move;
    for (auto& chunk : r.chunks) chunk.t += move;
    r.first_token += move;
    r.last_token += move;
    r.done += move;
  }
  const auto width = [](const RunSample& run) {
    const Comparison c = compare_runs(run, run, fast_options());
    return figure(c, "mean_ttft_ms").ci_high - figure(c, "mean_ttft_ms").ci_low;
  };

  EXPECT_GT(width(drifting), 1.5 * width(shuffled));
}

TEST(CompareTest, ErrorRateFromZeroIsWorseAndFailsItsGate) {
  const RunSample base = lognormal_run(40, 200);
  RunSample failing = lognormal_run(41, 200);
  for (std::size_t i = 0; i < failing.records.size(); i += 10) {
    failing.records[i] = test_records::failed_record(
        failing.records[i].id, 25.0 * static_cast<double>(i), 25.0 * static_cast<double>(i) + 5,
        core::ErrorClass::kHttp5xx, 503, "busy");
  }
  Comparison c = compare_runs(base, failing, fast_options());
  const FigureComparison& f = figure(c, "error_rate");
  EXPECT_DOUBLE_EQ(f.next, 0.1);
  EXPECT_EQ(f.verdict, Verdict::kWorse);
  EXPECT_FALSE(is_defined(f.delta_pct));  // a relative change from 0 is undefined
  EXPECT_EQ(c.new_failed, 20);
  apply_gates(c, parse_regression_gates({"error_rate:50%"}));
  EXPECT_TRUE(c.regressed());
  EXPECT_TRUE(std::isinf(c.gates[0].bound_pct));
  const auto json = comparison_to_json({c}, fast_options());
  const auto& fig = json["comparisons"][0]["figures"][15];
  EXPECT_EQ(fig["name"], "error_rate");
  EXPECT_TRUE(fig["delta_pct"].is_null());
  EXPECT_EQ(json["comparisons"][0]["regressions"][0]["bound_pct"], "inf");
}

TEST(CompareTest, FiguresUndefinedInARunAreNotApplicable) {
  RunSample plain = lognormal_run(50, 50);
  for (auto& r : plain.records) {
    r.streamed = false;
    r.chunks.clear();
    r.first_token = r.last_token = core::kNever;
  }
  const Comparison c = compare_runs(plain, plain, fast_options());
  EXPECT_EQ(figure(c, "p95_ttft_ms").verdict, Verdict::kNotApplicable);
  EXPECT_FALSE(is_defined(figure(c, "p95_ttft_ms").base));
  EXPECT_EQ(figure(c, "p50_e2el_ms").verdict, Verdict::kNoChange);
  const auto json = comparison_to_json({c}, fast_options());
  EXPECT_TRUE(json["comparisons"][0]["figures"][2]["base"].is_null());
  EXPECT_EQ(json["comparisons"][0]["figures"][2]["verdict"], "n/a");
}

TEST(CompareTest, GateParserAcceptsPercentagesWithOrWithoutSign) {
  auto gates = parse_regression_gates({"p95_ttft_ms:5%"});
  ASSERT_EQ(gates.size(), 1u);
  EXPECT_EQ(gates[0].figure, "p95_ttft_ms");
  EXPECT_DOUBLE_EQ(gates[0].margin, 0.05);
  gates = parse_regression_gates({"p95_ttft_ms:5", "mean_e2el_ms:2.5%, p50_decode_tps:0"});
  ASSERT_EQ(gates.size(), 3u);
  EXPECT_DOUBLE_EQ(gates[0].margin, 0.05);
  EXPECT_EQ(gates[1].figure, "mean_e2el_ms");
  EXPECT_DOUBLE_EQ(gates[1].margin, 0.025);
  EXPECT_EQ(gates[2].figure, "p50_decode_tps");
  EXPECT_EQ(gates[2].margin, 0.0);
  EXPECT_TRUE(parse_regression_gates({}).empty());
}

TEST(CompareTest, GateParserRejectsUnknownFiguresAndBadMargins) {
  for (const char* bad : {"p95_latency:5%", "p95_ttft_ms", "p95_ttft_ms:", "p95_ttft_ms:abc",
                          "p95_ttft_ms:-1", "p95_ttft_ms:inf", "p95_ttft_ms:nan", "p95_ttft_ms:5%%",
                          "p95_ttft_ms:5,p95_ttft_ms:6", ",", ""}) {
    EXPECT_THROW(parse_regression_gates({bad}), std::invalid_argument) << bad;
  }
  try {
    parse_regression_gates({"p95_latency:5%"});
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown figure 'p95_latency'"), std::string::npos) << what;
    EXPECT_NE(what.find(gateable_figure_names()), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
  EXPECT_NE(gateable_figure_names().find("p95_ttft_ms, p99_ttft_ms"), std::string::npos);
  // Run-level rates have an interval now, so they can be gated too.
  EXPECT_NE(gateable_figure_names().find("request_throughput"), std::string::npos);
  EXPECT_EQ(parse_regression_gates({"request_goodput:5%"})[0].figure, "request_goodput");
}

TEST(CompareTest, GateFailsOnlyWhenTheConservativeBoundExceedsTheMargin) {
  const RunSample base = lognormal_run(60, 200);
  Comparison c = compare_runs(base, lognormal_run(60, 200, 1.15), fast_options());
  apply_gates(c, parse_regression_gates({"p50_ttft_ms:5%"}));
  EXPECT_TRUE(c.regressed());
  EXPECT_GT(c.gates[0].bound_pct, 5.0);
  EXPECT_EQ(c.gates[0].bound_pct, figure(c, "p50_ttft_ms").ci_low_pct);
  apply_gates(c, parse_regression_gates({"p50_ttft_ms:30%", "mean_e2el_ms:30"}));
  EXPECT_FALSE(c.regressed());
  EXPECT_TRUE(is_defined(c.gates[0].bound_pct));  // worse, but not by 30%

  Comparison same = compare_runs(base, base, fast_options());
  apply_gates(same, parse_regression_gates({"p50_ttft_ms:0%"}));
  EXPECT_FALSE(same.regressed());
  EXPECT_FALSE(is_defined(same.gates[0].bound_pct));

  // A rate that fell is a regression too; its conservative bound is the upper one.
  Comparison fast =
      compare_runs(lognormal_run(61, 200, 1.15), lognormal_run(61, 200), fast_options());
  apply_gates(fast, parse_regression_gates({"p50_decode_tps:5%", "p50_ttft_ms:5%"}));
  EXPECT_FALSE(fast.regressed());
  Comparison slow =
      compare_runs(lognormal_run(61, 200), lognormal_run(61, 200, 1.15), fast_options());
  apply_gates(slow, parse_regression_gates({"p50_decode_tps:5%"}));
  EXPECT_TRUE(slow.regressed());
  EXPECT_DOUBLE_EQ(slow.gates[0].bound_pct, -figure(slow, "p50_decode_tps").ci_high_pct);
}

TEST(CompareTest, RenderedTableAndJson) {
  CompareOptions options = fast_options();
  Comparison c =
      compare_runs(lognormal_run(70, 200, 1.0, 0.1), lognormal_run(70, 200, 1.15, 0.1), options);
  apply_gates(c, parse_regression_gates({"p95_ttft_ms:5%", "p50_decode_tps:50%"}));
  const std::string text = render_comparison(c, options);
  for (const char* needle :
       {"BASE run-70 (200 measured, 0 failed)", "| figure", "BASE |", "delta % |",
        "95% CI of delta % |", "| verdict", "| p95_ttft_ms", "+15.0%", "worse", "| n/a",
        "CI 95% for all 20 figures together (each at 99.75%)", "2000 resamples, seed 0",
        "30 time windows", "under 2% are ~", "%*", "gate p95_ttft_ms:5%: FAILED",
        "gate p50_decode_tps:50%: passed: worse, but", "run-70 vs run-70: worse in"}) {
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  }
  const nlohmann::json j = comparison_to_json({c}, options);
  EXPECT_EQ(j["base"], "run-70");
  EXPECT_EQ(j["resamples"], 2000);
  EXPECT_EQ(j["seed"], 0);
  EXPECT_EQ(j["confidence"], 0.95);
  EXPECT_EQ(j["min_effect"], 0.02);
  const auto& cmp = j["comparisons"][0];
  EXPECT_EQ(cmp["new"], "run-70");
  EXPECT_EQ(cmp["verdict"], "worse");
  EXPECT_EQ(cmp["summary"], overall_verdict_line(c));
  ASSERT_EQ(cmp["figures"].size(), compared_figures().size());
  const auto& p95 = cmp["figures"][2];
  for (const char* key : {"name", "direction", "base", "new", "delta", "delta_pct", "ci_low",
                          "ci_high", "ci_low_pct", "ci_high_pct", "interval", "verdict"}) {
    EXPECT_TRUE(p95.contains(key)) << key;
  }
  EXPECT_EQ(p95["name"], "p95_ttft_ms");
  EXPECT_EQ(p95["direction"], "lower_is_better");
  EXPECT_EQ(p95["verdict"], "worse");
  EXPECT_EQ(p95["interval"], "block bootstrap");
  EXPECT_EQ(cmp["figures"][3]["interval"], "order statistics");  // p99 of 200
  EXPECT_EQ(cmp["figures"][3]["ci_high"], "inf");
  EXPECT_EQ(cmp["figures"][16]["interval"], "window bootstrap");  // request_throughput
  EXPECT_TRUE(cmp["figures"][16]["ci_low"].is_number());
  EXPECT_TRUE(cmp["figures"][19]["interval"].is_null());  // request_goodput: no --goodput
  EXPECT_EQ(cmp["figures"][19]["verdict"], "n/a");
  ASSERT_EQ(cmp["regressions"].size(), 1u);
  EXPECT_EQ(cmp["regressions"][0]["figure"], "p95_ttft_ms");
  EXPECT_EQ(cmp["gates"].size(), 2u);
  EXPECT_EQ(cmp["gates"][0]["judged"], true);
  EXPECT_TRUE(cmp["unjudged"].empty());
  EXPECT_TRUE(cmp["config_differences"].empty());
}

TEST(CompareTest, RejectsOptionsOutOfRange) {
  const RunSample run = lognormal_run(80, 20);
  CompareOptions bad;
  bad.resamples = 0;
  EXPECT_THROW(compare_runs(run, run, bad), std::invalid_argument);
  bad = CompareOptions{};
  bad.confidence = 1.0;
  EXPECT_THROW(compare_runs(run, run, bad), std::invalid_argument);
  bad = CompareOptions{};
  bad.min_effect = -0.1;
  EXPECT_THROW(compare_runs(run, run, bad), std::invalid_argument);
  EXPECT_DOUBLE_EQ(parse_percentage("2%", "x"), 0.02);
  EXPECT_DOUBLE_EQ(parse_percentage("0.5", "x"), 0.005);
  EXPECT_THROW(parse_percentage("two", "x"), std::invalid_argument);
}

TEST(CompareTest, TailPercentileOfASmallRunIsJudgedByOrderStatistics) {
  // 170 requests: 8.5 TTFTs beyond the p95, too few for the bootstrap (kMinTailValues), but
  // enough for a distribution-free bound at the figure's level (0.95^170 <= 0.05 / 20 / 4). A
  // doubled TTFT separates the two runs' intervals; equal runs keep them overlapping.
  const RunSample base = lognormal_run(8, 170, 1.0, 0.1);
  const Comparison slow = compare_runs(base, lognormal_run(8, 170, 2.0, 0.1), fast_options());
  const FigureComparison& p95 = figure(slow, "p95_ttft_ms");
  EXPECT_EQ(p95.interval, IntervalMethod::kOrderStatistics);
  EXPECT_EQ(p95.verdict, Verdict::kWorse);
  EXPECT_GT(p95.ci_low, 0.0);
  EXPECT_LT(p95.ci_low_pct, 100.0);
  EXPECT_GT(p95.ci_high_pct, 100.0);
  const Comparison same = compare_runs(base, base, fast_options());
  EXPECT_EQ(figure(same, "p95_ttft_ms").verdict, Verdict::kNoChange);
  EXPECT_LT(figure(same, "p95_ttft_ms").ci_low, 0.0);
  // Pooled ITL has thousands of gaps here, so its p95 keeps the bootstrap.
  EXPECT_EQ(figure(same, "p95_itl_ms").interval, IntervalMethod::kBlockBootstrap);
}

TEST(CompareTest, GateThatCannotBeBoundedIsNotJudged) {
  // p99 of 300 requests: no order statistic bounds BASE's p99 from above at the figure's level
  // (0.99^300 = 0.049), so no slowdown could fail a p99 gate: it is not judged.
  Comparison few = compare_runs(lognormal_run(9, 300, 1.0, 0.1), lognormal_run(9, 300, 2.0, 0.1),
                                fast_options());
  apply_gates(few, parse_regression_gates({"p99_ttft_ms:5%", "p50_ttft_ms:5%"}));
  EXPECT_FALSE(few.gates[0].judged);
  EXPECT_FALSE(few.gates[0].failed);
  EXPECT_TRUE(few.gates[1].judged);
  EXPECT_TRUE(few.gates[1].failed);
  EXPECT_TRUE(few.unjudged());
  EXPECT_NE(render_comparison(few, fast_options()).find("gate p99_ttft_ms:5%: NOT JUDGED"),
            std::string::npos);
  const auto json = comparison_to_json({few}, fast_options());
  ASSERT_EQ(json["comparisons"][0]["unjudged"].size(), 1u);
  EXPECT_EQ(json["comparisons"][0]["unjudged"][0]["figure"], "p99_ttft_ms");
  // 800 requests: still too few for the bootstrap of a p99 (8 values beyond it), but BASE's
  // maximum bounds its p99 (0.99^800 = 0.0003), so the doubling fails the gate.
  Comparison more = compare_runs(lognormal_run(9, 800, 1.0, 0.1), lognormal_run(9, 800, 2.0, 0.1),
                                 fast_options());
  apply_gates(more, parse_regression_gates({"p99_ttft_ms:5%"}));
  EXPECT_EQ(figure(more, "p99_ttft_ms").interval, IntervalMethod::kOrderStatistics);
  EXPECT_TRUE(more.gates[0].judged);
  EXPECT_TRUE(more.gates[0].failed);
  EXPECT_FALSE(more.unjudged());
}

/// `run` with every request sent `factor` times later (its own timing kept): the same requests
/// at a rate `factor` times lower, with the run-level figures recomputed.
RunSample slower_arrivals(RunSample run, double factor) {
  for (core::RequestRecord& r : run.records) {
    const auto shift = static_cast<core::Nanos>((factor - 1.0) * static_cast<double>(r.sent));
    for (core::Nanos* t :
         {&r.scheduled, &r.sent, &r.headers, &r.first_token, &r.last_token, &r.done}) {
      *t += shift;
    }
    for (auto& chunk : r.chunks) chunk.t += shift;
  }
  const metrics::Summary s = metrics::summarize(run.records, metrics::SummaryOptions{});
  run.request_throughput = s.request_throughput;
  run.output_throughput = s.output_throughput;
  run.total_token_throughput = s.total_token_throughput;
  return run;
}

TEST(CompareTest, ThroughputsGetAnIntervalFromTimeWindowsAndCanBeGated) {
  const RunSample base = slower_arrivals(lognormal_run(12, 400), 1.0);
  const RunSample slow = slower_arrivals(lognormal_run(13, 400), 1.25);
  Comparison c = compare_runs(base, slow, fast_options());
  for (const char* name : {"request_throughput", "output_throughput", "total_token_throughput"}) {
    const FigureComparison& f = figure(c, name);
    EXPECT_EQ(f.interval, IntervalMethod::kWindowBootstrap) << name;
    EXPECT_EQ(f.verdict, Verdict::kWorse) << name;
    EXPECT_NEAR(f.delta_pct, -20.0, 0.5) << name;
    EXPECT_LT(f.ci_low_pct, -20.0) << name;
    EXPECT_GT(f.ci_high_pct, -20.0) << name;
  }
  apply_gates(c, parse_regression_gates({"request_throughput:5%"}));
  EXPECT_TRUE(c.gates[0].judged);
  EXPECT_TRUE(c.regressed());
  EXPECT_DOUBLE_EQ(c.gates[0].bound_pct, -figure(c, "request_throughput").ci_high_pct);

  const Comparison same =
      compare_runs(base, slower_arrivals(lognormal_run(14, 400), 1.0), fast_options());
  EXPECT_EQ(figure(same, "request_throughput").verdict, Verdict::kNoChange);
  EXPECT_LT(figure(same, "request_throughput").ci_low, 0.0);
  EXPECT_GT(figure(same, "request_throughput").ci_high, 0.0);
}

/// n requests of kOutputTokens tokens whose gaps are all one lognormal draw per request
/// (`clustered`) or each its own draw: the same spread of gaps, but a request's gaps move
/// together in the first.
RunSample itl_run(std::uint64_t seed, int n, bool clustered) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> gap(std::log(10.0), 0.5);
  RunSample run;
  run.dir = "itl";
  for (int i = 0; i < n; ++i) {
    const double sent = 25.0 * i;
    double t = sent + 50.0;
    const double shared = gap(rng);
    std::vector<std::pair<double, int>> chunks;
    for (int k = 0; k < kOutputTokens; ++k) {
      if (k > 0) t += clustered ? shared : gap(rng);
      chunks.emplace_back(t, 1);
    }
    run.records.push_back(test_records::streamed_record(static_cast<std::uint64_t>(i), sent, sent,
                                                        chunks, t + 1, 32));
  }
  return run;
}

TEST(CompareTest, PooledItlResamplesWholeRequests) {
  // Pooled ITL is resampled by request (a cluster bootstrap): when a request's 15 gaps are one
  // value, the run holds 300 independent values, not 4500, and the interval of the mean is
  // about sqrt(15) = 3.9 times wider than for independent gaps. Resampling gaps one by one
  // would make the two widths equal.
  const auto width = [](const RunSample& run) {
    const Comparison c = compare_runs(run, run, fast_options());
    return figure(c, "mean_itl_ms").ci_high - figure(c, "mean_itl_ms").ci_low;
  };
  const double clustered = width(itl_run(15, 300, true));
  const double independent = width(itl_run(15, 300, false));
  EXPECT_GT(clustered, 2.5 * independent);
  EXPECT_LT(clustered, 6.0 * independent);
}

TEST(CompareTest, BlocksLengthenWithLongRangeCorrelation) {
  // 400 requests: ceil(sqrt(400)) = 20 for independent requests; stretches of 50 slow and 50
  // fast requests (a busy stretch of the machine) call for longer blocks.
  const RunSample steady = lognormal_run(16, 400, 1.0, 0.1);
  EXPECT_EQ(compare_internal::request_block_length(compare_internal::prepare(steady)), 20u);
  RunSample stretches = steady;
  for (std::size_t i = 0; i < stretches.records.size(); ++i) {
    if ((i / 50) % 2 == 0) continue;
    core::RequestRecord& r = stretches.records[i];
    const core::Nanos shift = 20 * kMs;
    for (auto& chunk : r.chunks) chunk.t += shift;
    r.first_token += shift;
    r.last_token += shift;
    r.done += shift;
  }
  const std::size_t block =
      compare_internal::request_block_length(compare_internal::prepare(stretches));
  EXPECT_GT(block, 25u);
  EXPECT_LE(block, 60u);  // capped at 3 sqrt(n)
}

TEST(CompareTest, RetriedAttemptsAndTheStreamCheckSampleCountAsInTheSummary) {
  // An attempt that a retry replaced is not a measured request, and a --nonstream-sample reply
  // is in no latency distribution: compare's BASE column is summary.json's.
  RunSample run = lognormal_run(17, 100);
  core::RequestRecord attempt =
      test_records::failed_record(1000, 0.5, 3.0, core::ErrorClass::kHttp5xx, 503, "busy");
  attempt.phase = core::Phase::kMeasure;
  attempt.retried = true;
  run.records.insert(run.records.begin() + 1, attempt);
  core::RequestRecord& whole = run.records[10];
  whole.nonstream_sample = true;
  whole.streamed = false;
  whole.chunks.clear();
  whole.first_token = whole.last_token = core::kNever;
  whole.done += 400 * kMs;  // far slower: it would move the mean E2EL
  const metrics::Summary s = metrics::summarize(run.records, metrics::SummaryOptions{});
  const Comparison c = compare_runs(run, run, fast_options());
  EXPECT_EQ(c.base_measured, s.measured);
  EXPECT_EQ(c.base_failed, 0);
  EXPECT_DOUBLE_EQ(figure(c, "error_rate").base, 0.0);
  EXPECT_DOUBLE_EQ(figure(c, "mean_e2el_ms").base, s.e2el_ms.mean);
  EXPECT_DOUBLE_EQ(figure(c, "p50_ttft_ms").base, s.ttft_ms.median);
}

TEST(CompareTest, ConfigDifferencesNameTheSettingsThatChangeTheMeasurement) {
  core::RunConfig a;
  a.model = "m1";
  a.max_concurrency = 8;
  a.output_len = 128;
  a.output_dir = "results/a";
  a.started_at = "2026-01-01T00:00:00Z";
  EXPECT_TRUE(config_differences(a, a).empty());
  core::RunConfig b = a;
  b.output_dir = "results/b";  // where results go, when, how they are shown: not compared
  b.started_at = "2026-01-02T00:00:00Z";
  b.percentiles = {50, 99.9};
  b.console_style = core::ConsoleStyle::kCompact;
  b.labels = {"gpu=h100"};
  EXPECT_TRUE(config_differences(a, b).empty());
  b.seed = 7;  // a repeat with other random draws: listed, tolerated
  std::vector<ConfigDifference> d = config_differences(a, b);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].field, "load.seed");
  EXPECT_TRUE(d[0].tolerated);
  EXPECT_EQ(describe_refused(d), "");
  b.model = "m2";
  b.max_concurrency = 16;
  b.output_len = 16;
  b.extra_body = R"({"temperature": 0.7})";
  b.sim_time_scale = 10;
  d = config_differences(a, b);
  EXPECT_EQ(describe_refused(d),
            "target.model (m1 -> m2), target.extra_body ( -> {\"temperature\": 0.7}), "
            "load.max_concurrency (8 -> 16), workload.output_len (128 -> 16), "
            "metrics.sim_time_scale (1 -> 10)");
  // A key written only for some configurations (a dataset's own settings) shows as absent.
  b = a;
  b.dataset = core::Dataset::kSonnet;
  d = config_differences(a, b);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[1].field, "workload.sonnet_prefix_len");
  EXPECT_EQ(d[1].base, "(absent)");
  EXPECT_EQ(d[1].next, "200");
}

class CompareLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "tokenbench-compare-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
  }
  std::string dir_;
};

TEST_F(CompareLoadTest, ReadsMeasurePhaseInSendOrder) {
  RunSample run = lognormal_run(90, 6);
  core::RequestRecord warm = run.records[0];
  warm.phase = core::Phase::kWarmup;
  std::string lines = records::record_to_jsonl_line(warm);
  // requests.jsonl lists requests as they end: reverse order here.
  for (auto it = run.records.rbegin(); it != run.records.rend(); ++it) {
    lines += records::record_to_jsonl_line(*it);
  }
  write("requests.jsonl", lines + "{\"id\": 9, \"pha");  // a final line cut short
  const RunSample loaded = load_run_sample(dir_);
  ASSERT_EQ(loaded.records.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(loaded.records[i].id, i);
  EXPECT_NE(loaded.warning.find("requests.jsonl"), std::string::npos) << loaded.warning;
  // Without summary.json the run-level figures come from the records.
  const metrics::Summary s = metrics::summarize(run.records, metrics::SummaryOptions{});
  EXPECT_DOUBLE_EQ(loaded.request_throughput, s.request_throughput);
  EXPECT_DOUBLE_EQ(loaded.output_throughput, s.output_throughput);

  write("summary.json", R"({"request_throughput": 12.5, "output_throughput": null})");
  const RunSample with_summary = load_run_sample(dir_);
  EXPECT_DOUBLE_EQ(with_summary.request_throughput, 12.5);
  EXPECT_FALSE(is_defined(with_summary.output_throughput));
}

// A run longer than max_records is kept as an even sample (every 2nd, 4th, ... as they ended);
// the counts shown are every request's, and the sample still compares with the whole run.
TEST_F(CompareLoadTest, ALongRunIsAnEvenBoundedSample) {
  RunSample run = lognormal_run(93, 1000);
  run.records[10].error = core::ErrorClass::kHttp5xx;
  std::string lines;
  for (const auto& r : run.records) lines += records::record_to_jsonl_line(r);
  write("requests.jsonl", lines);
  const RunSample whole = load_run_sample(dir_);
  EXPECT_EQ(whole.records.size(), 1000u);
  EXPECT_EQ(whole.stride, 1u);
  const RunSample sampled = load_run_sample(dir_, 300);
  EXPECT_EQ(sampled.stride, 4u);  // 1000 -> every 2nd (500) -> every 4th (250)
  EXPECT_EQ(sampled.records.size(), 250u);
  EXPECT_EQ(sampled.measured, 1000u);
  EXPECT_EQ(sampled.requests, 1000);
  EXPECT_EQ(sampled.failed, 1);
  for (const auto& r : sampled.records) EXPECT_EQ(r.id % 4, 0u);
  // Its run-level rates are every record's, and the comparison shows every request.
  EXPECT_DOUBLE_EQ(sampled.request_throughput, whole.request_throughput);
  const Comparison c = compare_runs(whole, sampled, CompareOptions{});
  EXPECT_EQ(c.base_measured, 1000);
  EXPECT_EQ(c.new_measured, 1000);
  EXPECT_EQ(c.new_failed, 1);
  EXPECT_FALSE(c.figures.empty());
}

TEST_F(CompareLoadTest, ReadsConfigAndItsGoodputObjectives) {
  const RunSample run = lognormal_run(92, 200);
  std::string lines;
  for (const auto& r : run.records) lines += records::record_to_jsonl_line(r);
  write("requests.jsonl", lines);
  core::RunConfig config;
  config.model = "m";
  config.goodput = {"e2el:250"};
  write("config.yaml", core::to_yaml(config));
  RunSample loaded = load_run_sample(dir_);
  ASSERT_TRUE(loaded.config.has_value());
  EXPECT_EQ(loaded.config->model, "m");
  ASSERT_TRUE(loaded.goodput.e2el_ms.has_value());
  EXPECT_EQ(*loaded.goodput.e2el_ms, 250.0);
  // No summary.json: request_goodput comes from the records, judged against the objectives.
  metrics::SummaryOptions options;
  options.slo = loaded.goodput;
  const metrics::Summary s = metrics::summarize(run.records, options);
  EXPECT_GT(s.good_completed, 0);
  EXPECT_LT(s.good_completed, s.completed);
  EXPECT_DOUBLE_EQ(loaded.request_goodput, s.request_goodput);
  const Comparison c = compare_runs(loaded, loaded, fast_options());
  EXPECT_EQ(figure(c, "request_goodput").interval, IntervalMethod::kWindowBootstrap);
  EXPECT_EQ(figure(c, "request_goodput").verdict, Verdict::kNoChange);

  // A run reported in the simulator's model time (--sim-time) is compared in model time, as its
  // summary.json and tables show it: the records' server part 10x longer, the objectives as given.
  const auto e2el_of = [](const RunSample& r) { return *metrics::e2el_ms(r.records.front()); };
  const double real_e2el = e2el_of(loaded);
  config.sim_time = true;
  config.sim_time_scale = 10;
  write("config.yaml", core::to_yaml(config));
  loaded = load_run_sample(dir_);
  EXPECT_DOUBLE_EQ(*loaded.goodput.e2el_ms, 250.0);
  EXPECT_NEAR(e2el_of(loaded), 10 * real_e2el, 1e-3);
  write("config.yaml", "target: [unclosed");
  EXPECT_THROW(load_run_sample(dir_), std::runtime_error);
}

TEST_F(CompareLoadTest, ErrorsAreOneLine) {
  const auto message = [](const std::string& dir) {
    try {
      load_run_sample(dir);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(dir_ + "/absent").find("is not a directory"), std::string::npos);
  EXPECT_NE(message(dir_).find("has no requests.jsonl"), std::string::npos);
  write("requests.jsonl", "");
  EXPECT_NE(message(dir_).find("no measure-phase request"), std::string::npos);
  write("requests.jsonl", records::record_to_jsonl_line(lognormal_run(91, 1).records[0]));
  write("summary.json", "{not json");
  const std::string bad_summary = message(dir_);
  EXPECT_NE(bad_summary.find("summary.json"), std::string::npos) << bad_summary;
  EXPECT_EQ(bad_summary.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace tokenbench::experiment
