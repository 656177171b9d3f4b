#include "tokenbench/distributed/session.h"

#include <gtest/gtest.h>

#include <thread>

#include "local_comm.h"
#include "tokenbench/distributed/merge.h"
#include "tokenbench/records/records_io.h"

namespace tokenbench::distributed {
namespace {

using std::chrono::milliseconds;

core::RequestRecord record_at(std::uint64_t id, core::Nanos t) {
  core::RequestRecord r;
  r.id = id;
  r.scheduled = t;
  r.sent = t + 10;
  r.headers = t + 1'000;
  r.first_token = t + 2'000;
  r.chunks = {{t + 2'000, 1}, {t + 3'000, 1}};
  r.last_token = t + 3'000;
  r.done = t + 4'000;
  r.output_tokens = 2;
  r.http_status = 200;
  return r;
}

TEST(RankReport, EncodesAndDecodesWhole) {
  RankReport r;
  r.rank = 3;
  r.host = "node-b";
  r.canceled = true;
  r.origin_ns = 123456789;
  r.measure_start = 50;
  r.measure_end = 900;
  r.cpu = {{{1, 2}, {3, 4}}, {}};
  r.parts = {records::record_to_jsonl_line(record_at(7, 100)), ""};
  const RankReport back = decode_report(encode_report(r));
  EXPECT_EQ(back.rank, 3);
  EXPECT_EQ(back.host, "node-b");
  EXPECT_TRUE(back.canceled);
  EXPECT_EQ(back.origin_ns, 123456789);
  EXPECT_EQ(back.measure_start, 50);
  EXPECT_EQ(back.measure_end, 900);
  ASSERT_EQ(back.cpu.size(), 2u);
  EXPECT_EQ(back.cpu[0][1].t, 3);
  EXPECT_EQ(back.cpu[0][1].cpu, 4);
  EXPECT_EQ(back.parts, r.parts);
  EXPECT_THROW(decode_report("no header"), std::runtime_error);
  EXPECT_THROW(decode_report(R"({"rank":1}
)"),
               std::runtime_error);
}

TEST(ShiftRecord, MovesEveryStampButNever) {
  core::RequestRecord r = record_at(1, 1'000);
  r.connected = core::kNever;
  shift_record(r, 500);
  EXPECT_EQ(r.scheduled, 1'500);
  EXPECT_EQ(r.sent, 1'510);
  EXPECT_EQ(r.first_token, 3'500);
  EXPECT_EQ(r.chunks[1].t, 4'500);
  EXPECT_EQ(r.done, 5'500);
  EXPECT_EQ(r.intended, core::kNever);
  EXPECT_EQ(r.connected, core::kNever);
}

// The whole protocol on threads: rank 3 never comes, ranks 1 and 2 measure one record each at
// the common start on run clocks of their own, and the merge puts their records at the same
// moment on the leader's clock.
TEST(Session, ALevelSharedByThreeRanksMergesOnTheLeadersClock) {
  testing::LocalWorld world(4);
  world.lose(3);
  const core::RunClock leader_clock;
  std::vector<std::thread> followers;
  std::vector<load::Shard> shards(3);
  for (int k = 1; k <= 2; ++k) {
    followers.emplace_back([&world, &shards, k, &leader_clock] {
      testing::LocalComm comm(world, k);
      Session s(comm);
      s.say_hello("");
      const auto level = s.await_level({});
      ASSERT_TRUE(level.has_value());
      EXPECT_EQ(*level, "level: one");
      shards[static_cast<std::size_t>(k)] = s.shard();
      // A run clock whose origin is k ms after the leader's.
      const core::RunClock clock(leader_clock.origin() + milliseconds(k));
      const auto start = s.common_start(clock, "", {});
      ASSERT_TRUE(start.has_value());
      EXPECT_GT(*start, clock.now());  // ahead: every member hears of it in time
      LeaderShare mine;
      mine.parts = {{record_at(static_cast<std::uint64_t>(k), *start)}};
      mine.measure_start = *start;
      mine.measure_end = *start + 4'000;
      RankReport r;
      r.rank = k;
      r.host = s.host();
      r.origin_ns = clock.origin_ns();
      r.measure_start = mine.measure_start;
      r.measure_end = mine.measure_end;
      r.parts = {records::record_to_jsonl_line(mine.parts[0][0])};
      s.send_report(r);
      EXPECT_FALSE(s.await_level({}).has_value());  // finish
      EXPECT_FALSE(s.leader_lost());
    });
  }
  testing::LocalComm comm(world, 0);
  Session leader(comm);
  const auto absent = leader.hear_hellos();
  ASSERT_EQ(absent.size(), 1u);
  EXPECT_EQ(absent[0].rank, 3);
  leader.announce_level("level: one");
  EXPECT_EQ(leader.shard().first, 0u);
  EXPECT_EQ(leader.shard().stride, 3u);
  const auto start = leader.common_start(leader_clock, "", {});
  ASSERT_TRUE(start.has_value());
  LeaderShare own;
  own.parts = {{record_at(0, *start)}};
  own.measure_start = *start;
  own.measure_end = *start + 4'000;
  const Merged m = merge_level(leader, own, leader.gather_reports(false), {}, false);
  leader.finish(0);
  for (auto& t : followers) t.join();
  EXPECT_EQ(shards[1].first, 1u);
  EXPECT_EQ(shards[1].stride, 3u);
  EXPECT_EQ(shards[2].first, 2u);

  ASSERT_EQ(m.parts.size(), 1u);
  ASSERT_EQ(m.parts[0].size(), 3u);
  for (const auto& r : m.parts[0]) {
    const auto& offset = leader.offsets().at(static_cast<int>(r.id));
    // One physical moment, read on three run clocks, lands at one leader time.
    EXPECT_NEAR(static_cast<double>(r.scheduled), static_cast<double>(*start),
                static_cast<double>(offset.uncertainty_ns) + 1e5)
        << "rank " << r.id;
    EXPECT_EQ(r.done - r.scheduled, 4'000);
  }
  EXPECT_FALSE(m.partial);
  ASSERT_EQ(m.distributed.size(), 1u);
  const auto& d = m.distributed[0];
  EXPECT_EQ(d["ranks"], 4);
  EXPECT_EQ(d["members"], 3);
  ASSERT_EQ(d["per_rank"].size(), 4u);
  EXPECT_EQ(d["per_rank"][1]["completed"], 1);
  EXPECT_EQ(d["per_rank"][3]["status"], "absent");
  ASSERT_EQ(d["missing"].size(), 1u);
  EXPECT_NE(d["missing"][0].get<std::string>().find("rank 3"), std::string::npos);
  EXPECT_NE(d["missing"][0].get<std::string>().find("shared among the other 3 ranks"),
            std::string::npos);
}

// A member that goes silent after the common start: the leader does not wait forever, and the
// merged result says what is missing and is partial.
TEST(Session, AMemberLostBeforeItsReportLeavesAPartialResult) {
  testing::LocalWorld world(2);
  const core::RunClock clock;
  std::thread follower([&world, &clock] {
    testing::LocalComm comm(world, 1);
    Session s(comm);
    s.say_hello("");
    ASSERT_TRUE(s.await_level({}).has_value());
    ASSERT_TRUE(s.common_start(clock, "", {}).has_value());
    world.lose(1);  // dies before it reports
  });
  testing::LocalComm comm(world, 0);
  Session leader(comm);
  EXPECT_TRUE(leader.hear_hellos().empty());
  leader.announce_level("x");
  ASSERT_TRUE(leader.common_start(clock, "", {}).has_value());
  follower.join();
  const Merged m = merge_level(leader, LeaderShare{{{}}, {}, 0, 1, false},
                               leader.gather_reports(false), {}, false);
  EXPECT_TRUE(m.partial);
  EXPECT_EQ(m.distributed[0]["per_rank"][1]["status"], "lost");
  EXPECT_NE(m.distributed[0]["missing"][0].get<std::string>().find("i mod 2 = 1"),
            std::string::npos);
}

// A leader that cannot start a measurement tells every member to skip it.
TEST(Session, ALeaderErrorAtTheGateSkipsEveryMember) {
  testing::LocalWorld world(2);
  const core::RunClock clock;
  std::optional<core::Nanos> follower_start = 1;
  std::thread follower([&] {
    testing::LocalComm comm(world, 1);
    Session s(comm);
    s.say_hello("");
    ASSERT_TRUE(s.await_level({}).has_value());
    follower_start = s.common_start(clock, "", {});
  });
  testing::LocalComm comm(world, 0);
  Session leader(comm);
  leader.hear_hellos();
  leader.announce_level("x");
  EXPECT_FALSE(leader.common_start(clock, "the workload has no requests", {}).has_value());
  follower.join();
  EXPECT_FALSE(follower_start.has_value());
}

}  // namespace
}  // namespace tokenbench::distributed
