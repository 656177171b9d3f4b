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

}  // namespace
}  // namespace tokenbench::experiment
