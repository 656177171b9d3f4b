// The Pareto front of sweep levels (both coordinates better larger), on hand-made points.

#include "tokenbench/experiment/pareto.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tokenbench::experiment {
namespace {

TEST(Pareto, APointIsOnTheFrontWhenNoOtherBeatsItInBoth) {
  // (output tok/s per GPU, a user's tok/s): a load sweep's curve, with a level past the knee
  // (4: less output per GPU than 3 and slower for its users) and a duplicate of 2.
  const std::vector<std::pair<double, double>> points = {{100, 50}, {300, 40}, {500, 25}, {450, 20},
                                                         {300, 40}, {200, 35}, {NAN, 60}};
  const std::vector<bool> front = pareto_front(points);
  EXPECT_EQ(front, (std::vector<bool>{true, true, true, false, true, false, false}));
}

TEST(Pareto, EdgesOfTheFront) {
  EXPECT_TRUE(pareto_front({}).empty());
  EXPECT_EQ(pareto_front({{1, 1}}), std::vector<bool>{true});
  // Equal in one coordinate, better in the other: the better dominates.
  EXPECT_EQ(pareto_front({{5, 1}, {5, 2}}), (std::vector<bool>{false, true}));
}

}  // namespace
}  // namespace tokenbench::experiment
