// --input-dist / --output-dist: each distribution's seeded draws against its parameters, the
// empirical file's weights, and one-line errors for bad specs.

#include "tokenbench/workload/length_dist.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <stdexcept>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/core/config_check.h"
#include "tokenbench/workload/dataset.h"

namespace tokenbench::workload {
namespace {

constexpr int kDraws = 2000;

struct Moments {
  double mean = 0;
  double sd = 0;
  std::int64_t min = 0;
  std::int64_t max = 0;
};

Moments draw_many(const LengthDist& d, std::uint64_t seed = 42) {
  std::mt19937_64 rng(seed);
  std::vector<double> xs;
  Moments m{0, 0, core::kMaxTokens, 0};
  for (int i = 0; i < kDraws; ++i) {
    const std::int64_t x = draw_length(d, rng);
    xs.push_back(static_cast<double>(x));
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  for (const double x : xs) m.mean += x / kDraws;
  for (const double x : xs) m.sd += (x - m.mean) * (x - m.mean) / (kDraws - 1);
  m.sd = std::sqrt(m.sd);
  return m;
}

std::string file_with(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& spec) {
  try {
    parse_length_dist(spec, "--input-dist");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(LengthDist, FixedIsTheDatasetsLengthAndDrawsNothing) {
  const LengthDist d = parse_length_dist("fixed", "--input-dist");
  EXPECT_EQ(d.kind, LengthDist::Kind::kFixed);
  std::mt19937_64 rng(1), untouched(1);
  EXPECT_EQ(draw_length(fixed_length(300, 0), rng), 300);
  EXPECT_EQ(rng(), untouched());
  // --range-ratio: vLLM's [len(1-r), len(1+r)].
  const Moments m = draw_many(fixed_length(100, 0.5));
  EXPECT_EQ(m.min, 50);
  EXPECT_EQ(m.max, 150);
}

TEST(LengthDist, UniformStaysWithinItsBoundsAndCoversThem) {
  const Moments m = draw_many(parse_length_dist("uniform:10,20", "--input-dist"));
  EXPECT_EQ(m.min, 10);
  EXPECT_EQ(m.max, 20);
  EXPECT_NEAR(m.mean, 15, 0.3);                   // sd 3.16 / sqrt(2000) = 0.07
  EXPECT_NEAR(m.sd, std::sqrt(120.0 / 12), 0.2);  // ((20-10+1)^2 - 1) / 12
}

TEST(LengthDist, NormalHasItsMeanAndSd) {
  const Moments m = draw_many(parse_length_dist("normal:500,50", "--input-dist"));
  EXPECT_NEAR(m.mean, 500, 5);  // 4.5 standard errors
  EXPECT_NEAR(m.sd, 50, 4);
  // Clamped to at least one token.
  EXPECT_GE(draw_many(parse_length_dist("normal:2,50", "--input-dist")).min, 1);
}

// inference-perf's distributions (utils/numeric/distribution/utils.py at 7de5ef2e): a normal of
// mean 512 and SD 200 clipped to [10, 1024], its defaults. The bounds hold, and they bite: a
// normal of SD 200 reaches past 512 +- 400 in 4.6% of 2000 draws.
TEST(LengthDist, BoundsClampNormalAndLognormal) {
  const LengthDist d = parse_length_dist("normal:512,200,10,1024", "--input-dist");
  EXPECT_EQ(d.min, 10);
  EXPECT_EQ(d.max, 1024);
  const Moments m = draw_many(d);
  EXPECT_EQ(m.max, 1024);
  EXPECT_GE(m.min, 10);
  EXPECT_NEAR(m.mean, 512, 10);
  const Moments narrow = draw_many(parse_length_dist("normal:100,50,90,110", "--input-dist"));
  EXPECT_EQ(narrow.min, 90);
  EXPECT_EQ(narrow.max, 110);
  const Moments log = draw_many(parse_length_dist("lognormal:300,300,200,400", "--output-dist"));
  EXPECT_EQ(log.min, 200);
  EXPECT_EQ(log.max, 400);
  // Without bounds nothing changes: the same seed draws the same lengths.
  std::mt19937_64 a(5), b(5);
  const LengthDist plain = parse_length_dist("normal:500,50", "--input-dist");
  const LengthDist wide = parse_length_dist("normal:500,50,1,10000000", "--input-dist");
  for (int i = 0; i < 20; ++i) EXPECT_EQ(draw_length(plain, a), draw_length(wide, b));
  EXPECT_NE(error_of("normal:500,50,60").find("four: MEAN,SD,MIN,MAX"), std::string::npos);
  EXPECT_NE(error_of("normal:500,50,60,10").find("1 <= MIN <= MAX"), std::string::npos);
  EXPECT_NE(error_of("normal:500,50,0.5,10").find("whole numbers"), std::string::npos);
}

TEST(LengthDist, LognormalParametersAreThoseOfTheLength) {
  const auto [mu, sigma] = lognormal_params(500, 200);
  EXPECT_NEAR(std::exp(mu + sigma * sigma / 2), 500, 1e-9);
  EXPECT_NEAR(std::sqrt((std::exp(sigma * sigma) - 1) * std::exp(2 * mu + sigma * sigma)), 200,
              1e-9);
  const Moments m = draw_many(parse_length_dist("lognormal:500,200", "--output-dist"));
  EXPECT_NEAR(m.mean, 500, 20);
  EXPECT_NEAR(m.sd, 200, 25);
  EXPECT_GE(m.min, 1);
  // SD 0: the mean every time.
  EXPECT_EQ(draw_many(parse_length_dist("lognormal:64,0", "--output-dist")).max, 64);
}

TEST(LengthDist, SameSeedSameLengths) {
  const LengthDist d = parse_length_dist("lognormal:300,100", "--input-dist");
  std::mt19937_64 a(9), b(9), c(10);
  std::vector<std::int64_t> xa, xb, xc;
  for (int i = 0; i < 50; ++i) {
    xa.push_back(draw_length(d, a));
    xb.push_back(draw_length(d, b));
    xc.push_back(draw_length(d, c));
  }
  EXPECT_EQ(xa, xb);
  EXPECT_NE(xa, xc);
}

TEST(LengthDist, EmpiricalDrawsByWeight) {
  const std::string path =
      file_with("lengths-weighted.csv", "length,weight\n# a comment\n100,1\n\n200, 3\n300,0\n");
  const LengthDist d = parse_length_dist("empirical:" + path, "--input-dist");
  EXPECT_EQ(d.values, (std::vector<std::int64_t>{100, 200, 300}));
  std::mt19937_64 rng(3);
  std::map<std::int64_t, int> seen;
  for (int i = 0; i < kDraws; ++i) ++seen[draw_length(d, rng)];
  EXPECT_EQ(seen.count(300), 0u);                       // weight 0: never
  EXPECT_NEAR(seen[200] / double(kDraws), 0.75, 0.04);  // sd 0.0097
  EXPECT_EQ(seen[100] + seen[200], kDraws);
  // One length per line: equal weights.
  const std::string plain = file_with("lengths-plain.txt", "7\n9\n");
  const Moments m = draw_many(parse_length_dist("empirical:" + plain, "--output-dist"));
  EXPECT_EQ(m.min, 7);
  EXPECT_EQ(m.max, 9);
  EXPECT_NEAR(m.mean, 8, 0.1);
}

TEST(LengthDist, BadSpecsAreOneLineErrorsNamingTheFlagAndTheForms) {
  const std::string bad_len = file_with("lengths-bad.txt", "10\nten\n");
  const std::string zero = file_with("lengths-zero.csv", "10,0\n20,0\n");
  const std::string empty = file_with("lengths-empty.txt", "\n# nothing\n");
  for (const auto& [spec, needle] : std::vector<std::pair<std::string, std::string>>{
           {"gaussian:1,2", "'gaussian' is not a distribution"},
           {"uniform", "uniform needs its parameters after a colon"},
           {"uniform:20,10", "uniform needs 1 <= LO <= HI <= 10000000"},
           {"uniform:0,10", "uniform needs 1 <= LO <= HI"},
           {"uniform:1.5,10", "uniform needs two whole numbers LO,HI"},
           {"uniform:10", "uniform needs two whole numbers LO,HI"},
           {"normal:500", "normal needs two numbers MEAN,SD"},
           {"normal:500,-1", "normal needs 0 < MEAN <= 10000000 and SD >= 0"},
           {"lognormal:0,10", "lognormal needs 0 < MEAN"},
           {"lognormal:nan,10", "lognormal needs two numbers MEAN,SD"},
           {"fixed:5", "fixed takes no parameters"},
           {"empirical:", "empirical needs a file of lengths"},
           {"empirical:/no/such/file", "cannot open /no/such/file"},
           {"empirical:" + bad_len, bad_len + " line 2: 'ten' is not a length"},
           {"empirical:" + zero, zero + " has no weight above 0"},
           {"empirical:" + empty, empty + " has no lengths"}}) {
    const std::string e = error_of(spec);
    EXPECT_NE(e.find(needle), std::string::npos) << spec << ": " << e;
    EXPECT_EQ(e.rfind("--input-dist '" + spec + "': ", 0), 0u) << e;
    EXPECT_NE(
        e.find(
            "; use fixed, uniform:LO,HI, normal:MEAN,SD[,MIN,MAX], lognormal:MEAN,SD[,MIN,MAX] or "
            "empirical:FILE"),
        std::string::npos)
        << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

TEST(LengthDist, RandomAndSharedPrefixDrawTheirLengths) {
  RandomDatasetOptions o;
  o.input_dist = parse_length_dist("uniform:10,20", "--input-dist");
  o.output_dist = parse_length_dist("uniform:3,5", "--output-dist");
  o.seed = 5;
  const auto specs = make_random_dataset(o, 200);
  std::int64_t lo = 1 << 30, hi = 0;
  for (const auto& s : specs) {
    EXPECT_EQ(s.input_tokens, core::approx_token_count(s.prompt));
    lo = std::min(lo, s.input_tokens);
    hi = std::max(hi, s.input_tokens);
    EXPECT_GE(s.max_tokens, 3);
    EXPECT_LE(s.max_tokens, 5);
  }
  EXPECT_EQ(lo, 10);
  EXPECT_EQ(hi, 20);
  // A fixed distribution keeps a seed's prompts what they were before distributions existed.
  RandomDatasetOptions fixed;
  fixed.input_len = 12;
  fixed.seed = 5;
  RandomDatasetOptions same = fixed;
  same.input_dist = parse_length_dist("fixed", "--input-dist");
  EXPECT_EQ(make_random_dataset(fixed, 3)[2].prompt, make_random_dataset(same, 3)[2].prompt);

  SharedPrefixOptions sp;
  sp.groups = 2;
  sp.prompts_per_group = 10;
  sp.prefix_len = 8;
  sp.question_dist = parse_length_dist("uniform:4,6", "--input-dist");
  sp.output_dist = parse_length_dist("normal:50,5", "--output-dist");
  for (const auto& s : make_shared_prefix_dataset(sp, nullptr)) {
    EXPECT_GE(s.input_tokens, 8 + 4);
    EXPECT_LE(s.input_tokens, 8 + 6);
    EXPECT_GT(s.max_tokens, 20);
    EXPECT_LT(s.max_tokens, 80);
  }
}

}  // namespace
}  // namespace tokenbench::workload
