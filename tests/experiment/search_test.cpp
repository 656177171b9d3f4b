#include "tokenbench/experiment/search.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tokenbench::experiment {
namespace {

// A probe whose SLO holds exactly up to `flip`, with throughput equal to the level.
ProbeFn flips_at(double flip, std::vector<double>* probed = nullptr) {
  return [flip, probed](double value, int repeat) {
    if (probed && repeat == 0) probed->push_back(value);
    Probe p;
    p.value = value;
    p.repeat = repeat;
    p.complete = true;
    p.met = value <= flip;
    p.figures = {{"request_throughput", value}};
    return p;
  };
}

SearchOptions rate_options(double min, double max, double precision) {
  SearchOptions o;
  o.vary = SearchOptions::Vary::kRequestRate;
  o.slos = parse_slo_exprs({"p95_ttft_ms<=500"});
  o.min = min;
  o.max = max;
  o.precision = precision;
  return o;
}

TEST(Search, RateAnswerLiesWithinThePrecisionOfTheFlip) {
  for (double flip : {1.3, 7.77, 13.7, 31.9, 40.0}) {
    for (double precision : {0.1, 0.05, 0.01}) {
      const auto r = search(rate_options(1, 64, precision), flips_at(flip));
      ASSERT_EQ(r.status, "found") << flip;
      ASSERT_TRUE(r.lo && r.hi);
      EXPECT_LE(*r.lo, flip);
      EXPECT_GT(*r.hi, flip);
      EXPECT_LE((*r.hi - *r.lo) / *r.lo, precision);
      EXPECT_GE(*r.lo, flip / (1 + precision));
    }
  }
}

TEST(Search, BracketsByDoublingThenBisects) {
  std::vector<double> probed;
  const auto r = search(rate_options(1, 64, 0.05), flips_at(13.7, &probed));
  ASSERT_GE(probed.size(), 6u);
  EXPECT_EQ(std::vector<double>(probed.begin(), probed.begin() + 6),
            (std::vector<double>{1, 2, 4, 8, 16, 12}));
  EXPECT_EQ(r.trajectory.size(), probed.size());
  const std::string sentence = search_sentence(r, rate_options(1, 64, 0.05));
  EXPECT_EQ(sentence.rfind("under p95_ttft_ms<=500 the maximum throughput is 13.", 0), 0u)
      << sentence;
}

TEST(Search, ConcurrencyIsExactToOne) {
  SearchOptions o = rate_options(1, 64, 0.05);
  o.vary = SearchOptions::Vary::kMaxConcurrency;
  std::vector<double> probed;
  const auto r = search(o, flips_at(23, &probed));
  EXPECT_EQ(r.status, "found");
  EXPECT_EQ(*r.lo, 23);
  EXPECT_EQ(*r.hi, 24);
  EXPECT_EQ(probed, (std::vector<double>{1, 2, 4, 8, 16, 32, 24, 20, 22, 23}));
  EXPECT_EQ(probe_dir(o, 23, 0), "conc-23");
  EXPECT_EQ(probe_dir(o, 23, 2), "conc-23-rep3");
  EXPECT_EQ(probe_dir(rate_options(1, 2, 0.1), 8.5, 0), "rate-8.5");
}

TEST(Search, EdgesOfTheRange) {
  auto r = search(rate_options(2, 64, 0.05), flips_at(1));
  EXPECT_EQ(r.status, "min_breaks");
  EXPECT_FALSE(r.lo.has_value());
  EXPECT_EQ(r.trajectory.size(), 1u);
  EXPECT_NE(search_sentence(r, rate_options(2, 64, 0.05)).find("lower --min"), std::string::npos);
  r = search(rate_options(1, 10, 0.05), flips_at(100));
  EXPECT_EQ(r.status, "max_meets");
  EXPECT_EQ(*r.lo, 10);
  EXPECT_NE(search_sentence(r, rate_options(1, 10, 0.05)).find("raise --max"), std::string::npos);
}

// With the SLO's figure in every run, repeats are judged on its interval over the runs: a level
// passes only when even the interval's top meets p95_ttft_ms<=500.
TEST(Search, RepeatsWithFiguresDecideByTheirInterval) {
  SearchOptions o = rate_options(1, 64, 0.05);
  o.vary = SearchOptions::Vary::kMaxConcurrency;
  o.repeats = 3;
  // p95 TTFT 400 + 10 v, the runs 30 ms apart: mean 400 + 10 v, sd 30, half-width
  // t(2) 4.303 x 30 / sqrt(3) = 74.5. The interval meets 500 up to v = 2; a majority of runs
  // (those at -30 and 0) would up to v = 10.
  auto spread = [&o](double value, int repeat) {
    Probe p;
    p.value = value;
    p.repeat = repeat;
    p.complete = true;
    const double actual = 400 + 10 * value + 30.0 * (repeat - 1);
    p.figures = {{"request_throughput", value}, {"p95_ttft_ms", actual}};
    p.slo = check_slos(o.slos, p.figures);
    p.met = all_met(p.slo);
    return p;
  };
  const auto r = search(o, spread);
  EXPECT_EQ(*r.lo, 2);
  EXPECT_EQ(*r.hi, 3);
  for (const auto& d : r.trajectory) {
    EXPECT_TRUE(d.by_interval);
    ASSERT_TRUE(d.slo_ci.front().has_value());
    EXPECT_NEAR(d.slo_ci.front()->hi - d.slo_ci.front()->estimate, 4.303 * 30 / std::sqrt(3.0),
                1e-9);
    // The majority passes up to 10: the interval is stricter.
    if (d.value > 2 && d.value <= 10) EXPECT_FALSE(d.pass) << d.value;
  }
}

TEST(Search, RepeatsDecideByMajority) {
  SearchOptions o = rate_options(1, 64, 0.05);
  o.vary = SearchOptions::Vary::kMaxConcurrency;
  o.repeats = 3;
  // Below 10 the SLO holds in 2 of 3 runs (the second fails); from 10 on in 1 of 3.
  auto noisy = [](double value, int repeat) {
    Probe p;
    p.value = value;
    p.repeat = repeat;
    p.complete = true;
    p.met = value < 10 ? repeat != 1 : repeat == 0;
    p.figures = {{"request_throughput", value + repeat}};
    return p;
  };
  const auto r = search(o, noisy);
  EXPECT_EQ(*r.lo, 9);
  EXPECT_EQ(*r.hi, 10);
  for (const auto& d : r.trajectory) {
    EXPECT_EQ(d.runs, 3);
    EXPECT_EQ(d.passes, d.value < 10 ? 2 : 1);
    EXPECT_DOUBLE_EQ(d.request_throughput, d.value + 1);  // the mean of value + 0, 1, 2
  }
  EXPECT_EQ(r.probes.size(), 3 * r.trajectory.size());
}

TEST(Search, StopsWhenCanceled) {
  int calls = 0;
  const auto r = search(rate_options(1, 64, 0.05), flips_at(50), [&calls] { return ++calls > 3; });
  EXPECT_TRUE(r.canceled);
  EXPECT_EQ(r.status, "canceled");
  EXPECT_EQ(r.trajectory.size(), 3u);
}

// A curve that rises with slope 1 to a peak, then falls with slope `fall`, while the SLO holds up
// to `met_up_to`.
ProbeFn rises_then_falls(double peak, double fall, double met_up_to) {
  return [=](double value, int repeat) {
    Probe p;
    p.value = value;
    p.repeat = repeat;
    p.complete = true;
    p.met = value <= met_up_to;
    p.figures = {{"request_throughput", value <= peak ? value : peak - fall * (value - peak)}};
    return p;
  };
}

// serve-sim's shape under a TTFT SLO: throughput rises to a peak at concurrency 32, then falls
// while the SLO still holds up to 40 (the "37 at 18.23 req/s while 32 gave 18.73").
ProbeFn knee_at_32() { return rises_then_falls(32, 0.25, 40); }

SearchOptions concurrency_options(double min, double max) {
  SearchOptions o = rate_options(min, max, 0.05);
  o.vary = SearchOptions::Vary::kMaxConcurrency;
  return o;
}

TEST(Search, AnswerIsTheHighestThroughputNotTheLargestPassingLoad) {
  const SearchOptions o = concurrency_options(1, 64);
  const auto r = search(o, knee_at_32());
  EXPECT_EQ(r.status, "found");
  ASSERT_TRUE(r.best && r.lo && r.hi);
  EXPECT_EQ(*r.best, 32);
  EXPECT_EQ(*r.lo, 40);
  EXPECT_EQ(*r.hi, 42);  // within --precision 5% of 40
  EXPECT_TRUE(r.fell);
  const std::string sentence = search_sentence(r, o);
  EXPECT_NE(sentence.find("the maximum throughput is 32.00 req/s at concurrency 32"),
            std::string::npos)
      << sentence;
  EXPECT_NE(sentence.find("the largest load meeting them is concurrency 40, at 30.00 req/s"),
            std::string::npos)
      << sentence;
  EXPECT_NE(sentence.find("Throughput fell between passing levels"), std::string::npos);
  const auto j = search_to_json(r, o);
  EXPECT_EQ(j["answer"]["value"], 32);
  EXPECT_EQ(j["answer"]["largest_passing_value"], 40);
  EXPECT_EQ(j["answer"]["throughput_fell"], true);
}

TEST(Search, ProbesAroundAPeakTheBisectionPassedOver) {
  // Peak at 28: the doubling probes 16 and 32 and the bisection (48, 40, 44, 42, 41) never
  // land on it; the probes around the best level find it.
  const auto r = search(concurrency_options(1, 64), rises_then_falls(28, 0.5, 40));
  ASSERT_TRUE(r.best);
  EXPECT_EQ(*r.best, 28);
  EXPECT_TRUE(r.fell);
  EXPECT_LE(r.trajectory.size(), 7u + 5u + static_cast<std::size_t>(kPeakProbes));
}

TEST(Search, NoPeakProbesWhileThroughputRisesToTheSloFlip) {
  std::vector<double> probed;
  const auto r = search(concurrency_options(1, 64), flips_at(23, &probed));
  EXPECT_FALSE(r.fell);
  EXPECT_EQ(*r.best, 23);
  EXPECT_EQ(probed, (std::vector<double>{1, 2, 4, 8, 16, 32, 24, 20, 22, 23}));
  EXPECT_NE(search_sentence(r, concurrency_options(1, 64)).find("the largest load meeting them"),
            std::string::npos);
}

TEST(Search, WarnsWhenTheBestCannotBeToldFromItsNeighbour) {
  // Every probe's throughput is known to +-1 req/s: 32 and 33 differ by 0.25.
  auto noisy = [](double value, int repeat) {
    Probe p = knee_at_32()(value, repeat);
    const double x = p.figures["request_throughput"];
    p.throughput_ci = metrics::Interval{x, x - 1, x + 1};
    p.slo_ci = {metrics::Interval{480, 450, 520}};  // p95 TTFT straddles the bound 500
    return p;
  };
  const SearchOptions o = concurrency_options(1, 64);
  const auto r = search(o, noisy);
  ASSERT_FALSE(r.warnings.empty());
  bool neighbour = false;
  bool verdict = false;
  for (const auto& w : r.warnings) {
    neighbour = neighbour || w.find("cannot be told from") != std::string::npos;
    verdict = verdict || w.find("p95_ttft_ms is 480 [450, 520]") != std::string::npos;
    EXPECT_NE(w.find("--repeats 3"), std::string::npos) << w;
  }
  EXPECT_TRUE(neighbour);
  EXPECT_TRUE(verdict);
  EXPECT_NE(render_search(r, o).find("Warning: "), std::string::npos);
  // Intervals that separate the levels and stay clear of the bound: no warning.
  auto clear = [](double value, int repeat) {
    Probe p = knee_at_32()(value, repeat);
    const double x = p.figures["request_throughput"];
    p.throughput_ci = metrics::Interval{x, x - 0.01, x + 0.01};
    p.slo_ci = {metrics::Interval{300, 290, 310}};
    return p;
  };
  EXPECT_TRUE(search(o, clear).warnings.empty());
}

// --objective cost: the answer is the passing level with the fewest USD per 1M output tokens,
// here at 24 while throughput (the level) rises to the SLO's flip at 40.
TEST(Search, TheCostObjectiveAnswersWithTheCheapestPassingLevel) {
  SearchOptions o = concurrency_options(1, 64);
  o.objective = SearchOptions::Objective::kCost;
  const auto r = search(o, [](double value, int repeat) {
    Probe p;
    p.value = value;
    p.repeat = repeat;
    p.complete = true;
    p.met = value <= 40;
    p.figures = {{"request_throughput", value},
                 {"usd_per_million_output_tokens", std::fabs(value - 24) + 1}};
    return p;
  });
  ASSERT_TRUE(r.best && r.lo);
  EXPECT_EQ(*r.best, 24);
  EXPECT_EQ(*r.lo, 40);
  EXPECT_FALSE(r.fell);  // throughput rose all the way: the cost chose a lower level
  const std::string sentence = search_sentence(r, o);
  EXPECT_NE(sentence.find("the cheapest load is concurrency 24: $1 per 1M output tokens, at "
                          "24.00 req/s"),
            std::string::npos)
      << sentence;
  const auto j = search_to_json(r, o);
  EXPECT_EQ(j["objective"], "cost");
  EXPECT_EQ(j["answer"]["usd_per_million_output_tokens"], 1.0);
}

}  // namespace
}  // namespace tokenbench::experiment
