#include "tokenbench/load/think_time.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tokenbench::load {
namespace {

TEST(ThinkTime, Syntax) {
  EXPECT_EQ(parse_think_time("2").a, 2.0);
  EXPECT_EQ(parse_think_time("exponential:0.5").kind, ThinkTime::Kind::kExponential);
  for (const char* bad : {"", "-1", "uniform:3,1", "uniform:1", "gamma:1", "x"}) {
    EXPECT_THROW(parse_think_time(bad), std::invalid_argument) << bad;
  }
  // Exponential draws average their mean.
  const ThinkTime t = parse_think_time("exponential:2");
  double sum = 0;
  for (int i = 0; i < 4000; ++i) sum += t.seconds(1, i, 1);
  EXPECT_NEAR(sum / 4000, 2.0, 0.15);
}

}  // namespace
}  // namespace tokenbench::load
