#include "tokenbench/driver/per_target_source.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tokenbench::driver {
namespace {

using client::ImmediateSource;
using client::RequestSource;
using client::SourcedRequest;

core::RequestRecord ended(std::uint32_t target, std::uint64_t id, core::Nanos done) {
  core::RequestRecord r;
  r.endpoint = target;
  r.id = id;
  r.sent = 0;
  r.done = done;
  return r;
}

TEST(PerTargetSource, ASlowTargetNeverHoldsAFastOnesSlots) {
  const std::vector<core::RequestSpec> slow_specs(1);
  const std::vector<core::RequestSpec> fast_specs(1);
  const std::vector<std::string> bodies{"x"};
  ImmediateSource slow(slow_specs, bodies, 10, 0);
  ImmediateSource fast(fast_specs, bodies, 10, 0);
  PerTargetSource source({&slow, &fast}, 2);
  SourcedRequest r;
  core::Nanos due = 0;
  bool finished = false;
  // Two slots each: four requests, two per target, then none until one ends.
  int to_slow = 0;
  for (int k = 0; k < 4; ++k) {
    ASSERT_TRUE(source.next(5, RequestSource::kNoSlotWait, r, due, finished));
    if (r.spec == &slow_specs[0]) ++to_slow;
  }
  EXPECT_EQ(to_slow, 2);
  EXPECT_FALSE(source.next(5, RequestSource::kNoSlotWait, r, due, finished));
  EXPECT_FALSE(finished);
  // The fast target's requests end while the slow one's are still in flight: the fast target
  // goes on, each request scheduled when its target's slot freed (that wait is the target's,
  // not the client's), or when the worker's own slot did, whichever is later.
  source.done(ended(1, 1, 40));
  ASSERT_TRUE(source.next(50, RequestSource::kNoSlotWait, r, due, finished));
  EXPECT_EQ(r.spec, &fast_specs[0]);
  EXPECT_EQ(r.scheduled, 40);
  EXPECT_FALSE(source.next(50, RequestSource::kNoSlotWait, r, due, finished));
  source.done(ended(1, 3, 60));
  source.done(ended(1, 5, 61));
  ASSERT_TRUE(source.next(70, RequestSource::kNoSlotWait, r, due, finished));
  EXPECT_EQ(r.spec, &fast_specs[0]);
  EXPECT_EQ(r.scheduled, 60);
  ASSERT_TRUE(source.next(70, 65, r, due, finished));
  EXPECT_EQ(r.spec, &fast_specs[0]);
  EXPECT_EQ(r.scheduled, 65);
  EXPECT_FALSE(source.next(70, RequestSource::kNoSlotWait, r, due, finished));
  // The slow target's slot frees: it gets its next request.
  source.done(ended(0, 0, 80));
  ASSERT_TRUE(source.next(90, RequestSource::kNoSlotWait, r, due, finished));
  EXPECT_EQ(r.spec, &slow_specs[0]);
}

TEST(PerTargetSource, FinishedWhenEveryTargetIs) {
  const std::vector<core::RequestSpec> specs(1);
  const std::vector<std::string> bodies{"x"};
  ImmediateSource a(specs, bodies, 1, 0);
  ImmediateSource b(specs, bodies, 2, 0);
  PerTargetSource source({&a, &b}, 0);  // no limit
  SourcedRequest r;
  core::Nanos due = 0;
  bool finished = false;
  int handed = 0;
  while (source.next(0, RequestSource::kNoSlotWait, r, due, finished)) ++handed;
  EXPECT_EQ(handed, 3);
  EXPECT_TRUE(finished);
}

}  // namespace
}  // namespace tokenbench::driver
