#include "tokenbench/driver/schedule_source.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tokenbench/driver/request_feed.h"
#include "tokenbench/load/arrival_schedule.h"
#include "tokenbench/load/work_queue.h"

namespace tokenbench::driver {
namespace {

// A ScheduleSource over `queue` and `feed`, asked for its next request as a worker asks.
struct Asked {
  Asked(load::WorkQueue& queue, RequestFeed& feed) : source(queue, work_of(feed)) {}
  static PhaseWork work_of(RequestFeed& feed) {
    PhaseWork work;
    work.feed = &feed;
    return work;
  }
  bool next(core::Nanos now) {
    return source.next(now, client::RequestSource::kNoSlotWait, request, next_due, finished);
  }
  ScheduleSource source;
  client::SourcedRequest request;
  core::Nanos next_due = 0;
  bool finished = false;
};

TEST(ScheduleSource, NonstreamSamplePicksByPromptSoEveryTargetAgrees) {
  PhaseWork work;
  work.sample_count = 5;
  work.sample_prompts = 40;
  work.per_prompt = 2;  // two targets: schedule indices 2p and 2p + 1 are prompt p
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < 80; ++i) {
    if (work.nonstream(i)) indices.push_back(i);
  }
  EXPECT_EQ(indices, (std::vector<std::size_t>{14, 15, 30, 31, 46, 47, 62, 63, 78, 79}));
  work.sample_count = 0;
  EXPECT_FALSE(work.nonstream(14));
}

TEST(ScheduleSource, DueScheduledDroppedAndIntended) {
  const auto schedule =
      load::ArrivalSchedule::open_loop(3, 0, 1.0, core::ArrivalKind::kConstant, 1.0, 1);
  load::WorkQueue queue(schedule, 100);
  RequestFeed feed({}, schedule.size(), 4, [](std::size_t i) {
    Prepared p;
    p.spec.id = 7 + i;
    p.body = "body " + std::to_string(i);
    return p;
  });
  feed.wait_full();
  PhaseWork work;
  work.feed = &feed;
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
  EXPECT_EQ(*r.body, "body 0");
  EXPECT_EQ(r.spec->id, 7u);
  EXPECT_NE(r.hold, nullptr);  // the request owns what the feed made
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
  EXPECT_EQ(r.spec->id, 8u);
  EXPECT_EQ(r.scheduled, r.due);
  EXPECT_EQ(r.phase, core::Phase::kMeasure);
  source.stop();
  EXPECT_FALSE(
      source.next(1'000'000'000'000, client::RequestSource::kNoSlotWait, r, next, finished));
  EXPECT_TRUE(finished);
  EXPECT_EQ(feed.lates(), 0);
}

// A request due before its feed made it is left for a moment and counted late; nothing blocks.
TEST(ScheduleSource, RequestNotMadeYetIsLateNotWaitedFor) {
  const auto schedule = load::ArrivalSchedule::immediate(2);
  load::WorkQueue queue(schedule, 0);
  std::atomic<bool> go{false};
  RequestFeed feed({}, schedule.size(), 2, [&go](std::size_t i) {
    while (!go.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    Prepared p;
    p.spec.id = i;
    return p;
  });
  Asked asked(queue, feed);
  EXPECT_FALSE(asked.next(1000));
  EXPECT_FALSE(asked.finished);
  EXPECT_EQ(asked.next_due, 1000 + ScheduleSource::kFeedRetry);
  EXPECT_FALSE(asked.next(2000));
  EXPECT_EQ(feed.lates(), 1);  // once per request, however often it is looked at
  go = true;
  feed.wait_full();
  ASSERT_TRUE(asked.next(3000));
  EXPECT_EQ(asked.request.id, 0u);
  ASSERT_TRUE(asked.next(3000));
  EXPECT_EQ(asked.request.id, 1u);
}

// A shard's feed makes its own indices in the order its queue hands them out, a ring's worth
// ahead: whole groups of a prompt's requests, every stride-th group.
TEST(RequestFeed, MakesTheShardsIndicesInOrderARingAhead) {
  std::vector<std::size_t> made;
  std::mutex lock;
  const load::Shard shard{1, 3, 2};  // groups 1, 4, 7, ... of 2: indices 2, 3, 8, 9, 14, 15
  RequestFeed feed(shard, 16, 3, [&](std::size_t i) {
    const std::lock_guard<std::mutex> hold(lock);
    made.push_back(i);
    Prepared p;
    p.body = std::to_string(i);
    return p;
  });
  feed.wait_full();
  {
    const std::lock_guard<std::mutex> hold(lock);
    EXPECT_EQ(made, (std::vector<std::size_t>{2, 3, 8}));  // the ring holds 3
  }
  EXPECT_TRUE(feed.ready(2));
  EXPECT_FALSE(feed.ready(9));
  for (std::size_t i : {2, 3, 8, 9, 14, 15}) {
    while (!feed.ready(i)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(feed.take(i)->body, std::to_string(i));
  }
  feed.stop();
  EXPECT_EQ(made, (std::vector<std::size_t>{2, 3, 8, 9, 14, 15}));
}

// What making a request threw is kept for the phase to rethrow; the source then ends the phase.
TEST(RequestFeed, AFailureEndsThePhaseAndIsRethrown) {
  const auto schedule = load::ArrivalSchedule::immediate(4);
  load::WorkQueue queue(schedule, 0);
  RequestFeed feed({}, schedule.size(), 4, [](std::size_t i) -> Prepared {
    if (i == 1) throw std::runtime_error("no prompt 1");
    return Prepared{};
  });
  feed.wait_full();
  EXPECT_TRUE(feed.failed());
  Asked asked(queue, feed);
  EXPECT_TRUE(asked.next(0));
  EXPECT_FALSE(asked.next(0));
  EXPECT_TRUE(asked.finished);
  EXPECT_THROW(feed.rethrow_error(), std::runtime_error);
}

}  // namespace
}  // namespace tokenbench::driver
