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
#include "tokenbench/metrics/summary.h"
#include "tokenbench/report/records_io.h"

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
  const std::vector<std::string> expected{
      "mean_ttft_ms", "p50_ttft_ms",        "p95_ttft_ms",      "p99_ttft_ms", "mean_tpot_ms",
      "p50_tpot_ms",  "p95_tpot_ms",        "mean_itl_ms",      "p50_itl_ms",  "p95_itl_ms",
      "mean_e2el_ms", "p50_e2el_ms",        "p95_e2el_ms",      "p99_e2el_ms", "p50_decode_tps",
      "error_rate",   "request_throughput", "output_throughput"};
  EXPECT_EQ(names, expected);
  for (const FigureSpec& f : compared_figures()) {
    const bool rate = f.name.find("throughput") != std::string_view::npos ||
                      f.name.find("tps") != std::string_view::npos;
    EXPECT_EQ(f.direction, rate ? Direction::kHigherIsBetter : Direction::kLowerIsBetter) << f.name;
    EXPECT_EQ(f.per_request, f.name.find("throughput") == std::string_view::npos) << f.name;
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
    EXPECT_EQ(f.delta, 0.0) << f.name;
    EXPECT_EQ(f.delta_pct, 0.0) << f.name;
    // Run-level figures get no interval, nor does a p99 of 200 requests (2 values beyond it,
    // under kMinTailValues).
    if (f.name.find("throughput") != std::string::npos || f.name.rfind("p99_", 0) == 0) {
      EXPECT_EQ(f.verdict, Verdict::kNotApplicable) << f.name;
      EXPECT_FALSE(is_defined(f.ci_low)) << f.name;
    } else {
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
  EXPECT_EQ(figure(c, "request_throughput").verdict, Verdict::kNotApplicable);
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
  // batch makes them) and shuffled. Blocks keep the runs together, so the interval is wider.
  RunSample drifting = lognormal_run(30, 400, 1.0, 0.05);
  for (std::size_t i = 0; i < drifting.records.size(); ++i) {
    const core::Nanos shift = static_cast<core::Nanos>((i / 20) % 2 == 0 ? 0 : 40 * kMs);
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
                          "request_throughput:5%", "p95_ttft_ms:5,p95_ttft_ms:6", ",", ""}) {
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
  EXPECT_EQ(gateable_figure_names().find("request_throughput"), std::string::npos);
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
        "2000 resamples, seed 0), 95% for all 16 figures together", "under 2% are ~",
        "gate p95_ttft_ms:5%: FAILED", "gate p50_decode_tps:50%: passed: worse, but",
        "run-70 vs run-70: worse in"}) {
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
                          "ci_high", "ci_low_pct", "ci_high_pct", "verdict"}) {
    EXPECT_TRUE(p95.contains(key)) << key;
  }
  EXPECT_EQ(p95["name"], "p95_ttft_ms");
  EXPECT_EQ(p95["direction"], "lower_is_better");
  EXPECT_EQ(p95["verdict"], "worse");
  EXPECT_TRUE(cmp["figures"][16]["ci_low"].is_null());  // request_throughput: no CI
  EXPECT_EQ(cmp["figures"][16]["verdict"], "n/a");
  ASSERT_EQ(cmp["regressions"].size(), 1u);
  EXPECT_EQ(cmp["regressions"][0]["figure"], "p95_ttft_ms");
  EXPECT_EQ(cmp["gates"].size(), 2u);
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
  std::string lines = report::record_to_jsonl_line(warm);
  // requests.jsonl lists requests as they end: reverse order here.
  for (auto it = run.records.rbegin(); it != run.records.rend(); ++it) {
    lines += report::record_to_jsonl_line(*it);
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
  write("requests.jsonl", report::record_to_jsonl_line(lognormal_run(91, 1).records[0]));
  write("summary.json", "{not json");
  const std::string bad_summary = message(dir_);
  EXPECT_NE(bad_summary.find("summary.json"), std::string::npos) << bad_summary;
  EXPECT_EQ(bad_summary.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace tokenbench::experiment
