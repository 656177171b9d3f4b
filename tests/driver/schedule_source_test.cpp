#include "tokenbench/driver/schedule_source.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenbench/load/arrival_schedule.h"
#include "tokenbench/load/work_queue.h"

namespace tokenbench::driver {
namespace {

TEST(ScheduleSource, NonstreamSamplePicksByPromptSoEveryTargetAgrees) {
  const std::vector<std::string> bodies(80);
  PhaseWork work;
  work.nonstream_bodies = &bodies;
  work.sample_count = 5;
  work.sample_prompts = 40;
  work.per_prompt = 2;  // two targets: schedule indices 2p and 2p + 1 are prompt p
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < 80; ++i) {
    if (work.nonstream(i)) indices.push_back(i);
  }
  EXPECT_EQ(indices, (std::vector<std::size_t>{14, 15, 30, 31, 46, 47, 62, 63, 78, 79}));
  work.nonstream_bodies = nullptr;
  EXPECT_FALSE(work.nonstream(14));
}

TEST(ScheduleSource, DueScheduledDroppedAndIntended) {
  const std::vector<core::RequestSpec> specs(2);
  const std::vector<std::string> bodies{"a", "b"};
  const auto schedule =
      load::ArrivalSchedule::open_loop(3, 0, 1.0, core::ArrivalKind::kConstant, 1.0, 1);
  load::WorkQueue queue(schedule, 100);
  PhaseWork work;
  work.specs = &specs;
  work.bodies = &bodies;
  work.id_base = 10;
  work.open_loop = true;
  work.drop_count = 1;
  ScheduleSource source(queue, work);
  client::SourcedRequest r;
  core::Nanos next = 0;
  bool finished = false;
  // Index 0 is due at the phase's start; its slot freed later, so it is scheduled then.
  ASSERT_TRUE(source.next(100, 500, r, next, finished));
  EXPECT_EQ(r.id, 10u);
  EXPECT_EQ(r.body, &bodies[0]);
  EXPECT_EQ(r.due, 100);
  EXPECT_EQ(r.intended, 100);
  EXPECT_EQ(r.scheduled, 500);
  EXPECT_EQ(r.phase, core::Phase::kDropped);
  EXPECT_EQ(r.session, -1);
  // Index 1 is due a second later: not yet.
  EXPECT_FALSE(source.next(200, client::RequestSource::kNoSlotWait, r, next, finished));
  EXPECT_FALSE(finished);
  EXPECT_EQ(next, 100 + 1'000'000'000);
  ASSERT_TRUE(source.next(next, client::RequestSource::kNoSlotWait, r, next, finished));
  EXPECT_EQ(r.id, 11u);
  EXPECT_EQ(r.spec, &specs[1]);
  EXPECT_EQ(r.scheduled, r.due);
  EXPECT_EQ(r.phase, core::Phase::kMeasure);
  source.stop();
  EXPECT_FALSE(
      source.next(1'000'000'000'000, client::RequestSource::kNoSlotWait, r, next, finished));
  EXPECT_TRUE(finished);
}

}  // namespace
}  // namespace tokenbench::driver
