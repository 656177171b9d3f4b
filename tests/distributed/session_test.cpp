#include "tokenbench/distributed/session.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "local_comm.h"
#include "tokenbench/distributed/merge.h"
#include "tokenbench/distributed/record_transfer.h"
#include "tokenbench/records/records_io.h"

namespace tokenbench::distributed {
namespace {

using std::chrono::milliseconds;

// A records file in the temporary directory holding `records`; returns its path.
std::string write_records(const std::string& name,
                          const std::vector<core::RequestRecord>& records) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("tokenbench_session_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream out(path, std::ios::trunc);
  for (const auto& r : records) out << records::record_to_jsonl_line(r);
  return path.string();
}

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
  EXPECT_THROW(decode_report("no header"), std::runtime_error);
  EXPECT_THROW(decode_report(R"({"rank":1})"), std::runtime_error);
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
      // Three records, the first two ending before the leader's, the last after it.
      std::vector<core::RequestRecord> mine;
      for (std::uint64_t i = 0; i < 3; ++i) {
        mine.push_back(record_at(10 * static_cast<std::uint64_t>(k) + i, *start));
        mine.back().done += static_cast<core::Nanos>(i) * 10'000'000;
      }
      RankReport r;
      r.rank = k;
      r.host = s.host();
      r.origin_ns = clock.origin_ns();
      r.measure_start = *start;
      r.measure_end = *start + 30'000'000;
      s.send_report(r);
      serve_records(comm, {write_records("rank" + std::to_string(k), mine)});
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
  core::RequestRecord mine = record_at(0, *start);
  mine.done += 15'000'000;
  own.files = {write_records("rank0", {mine})};
  own.measure_start = *start;
  own.measure_end = *start + 4'000;
  std::vector<core::RequestRecord> merged;
  const Merged m = merge_level(leader, own, leader.gather_reports(false), {}, false,
                               [&merged](std::size_t part, const core::RequestRecord& r) {
                                 EXPECT_EQ(part, 0u);
                                 merged.push_back(r);
                               });
  leader.finish(0);
  for (auto& t : followers) t.join();
  EXPECT_EQ(shards[1].first, 1u);
  EXPECT_EQ(shards[1].stride, 3u);
  EXPECT_EQ(shards[2].first, 2u);

  // Every record, in the order they ended on the leader's clock: each rank's first two, the
  // leader's, then each rank's last.
  ASSERT_EQ(merged.size(), 7u);
  for (std::size_t i = 1; i < merged.size(); ++i) {
    EXPECT_LE(merged[i - 1].done, merged[i].done) << i;
  }
  EXPECT_EQ(merged[4].id, 0u);
  for (const auto& r : merged) {
    const auto& offset = leader.offsets().at(static_cast<int>(r.id / 10));
    // One physical moment, read on three run clocks, lands at one leader time.
    EXPECT_NEAR(static_cast<double>(r.scheduled), static_cast<double>(*start),
                static_cast<double>(offset.uncertainty_ns) + 1e5)
        << "record " << r.id;
  }
  EXPECT_FALSE(m.partial);
  ASSERT_EQ(m.distributed.size(), 1u);
  const auto& d = m.distributed[0];
  EXPECT_EQ(d["ranks"], 4);
  EXPECT_EQ(d["members"], 3);
  ASSERT_EQ(d["per_rank"].size(), 4u);
  EXPECT_EQ(d["per_rank"][0]["completed"], 1);
  EXPECT_EQ(d["per_rank"][1]["completed"], 3);
  EXPECT_EQ(d["per_rank"][2]["requests"], 3);
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
  const Merged m =
      merge_level(leader, LeaderShare{{""}, {}, 0, 1, false}, leader.gather_reports(false), {},
                  false, [](std::size_t, const core::RequestRecord&) {});
  EXPECT_TRUE(m.partial);
  EXPECT_EQ(m.distributed[0]["per_rank"][1]["status"], "lost");
  EXPECT_NE(m.distributed[0]["missing"][0].get<std::string>().find("i mod 2 = 1"),
            std::string::npos);
}

// Rank 1 of a two-rank world: says hello, takes the level, passes the common start and sends its
// report (no records yet: the caller serves them, or not).
void report_one_level(testing::LocalComm& comm, const core::RunClock& clock) {
  Session s(comm);
  s.say_hello("");
  ASSERT_TRUE(s.await_level({}).has_value());
  ASSERT_TRUE(s.common_start(clock, "", {}).has_value());
  RankReport r;
  r.rank = 1;
  r.host = s.host();
  r.origin_ns = clock.origin_ns();
  s.send_report(r);
}

// A member whose records stop coming (its file cannot be read; or it dies while it sends them):
// what came is merged, and the result is partial and says why.
TEST(Session, AMemberWhoseRecordsStopComingLeavesAPartialResult) {
  for (const bool dies : {false, true}) {
    testing::LocalWorld world(2);
    const core::RunClock clock;
    std::thread follower([&world, &clock, dies] {
      testing::LocalComm comm(world, 1);
      report_one_level(comm, clock);
      if (dies) {
        world.lose(1);
        return;
      }
      serve_records(comm, {"/nonexistent/requests.rank-1.jsonl"});
    });
    testing::LocalComm comm(world, 0);
    Session leader(comm);
    leader.hear_hellos();
    leader.announce_level("x");
    ASSERT_TRUE(leader.common_start(clock, "", {}).has_value());
    std::int64_t merged = 0;
    LeaderShare own;
    own.files = {write_records("lone", {record_at(0, 5)})};
    const Merged m = merge_level(leader, own, leader.gather_reports(false), {}, false,
                                 [&merged](std::size_t, const core::RequestRecord&) { ++merged; });
    follower.join();
    EXPECT_EQ(merged, 1) << dies;
    EXPECT_TRUE(m.partial);
    const auto& row = m.distributed[0]["per_rank"][1];
    const std::string missing = m.distributed[0]["missing"][0];
    EXPECT_EQ(row["status"], "partial") << row.dump();
    EXPECT_NE(missing.find(dies ? "stopped answering while it sent its records"
                                : "could not send its records"),
              std::string::npos)
        << missing;
    if (!dies) {
      EXPECT_NE(missing.find("cannot open"), std::string::npos) << missing;
    }
    EXPECT_NE(missing.find("0 of its records were merged"), std::string::npos) << missing;
  }
}

// A member that dies after it sent part of its records, in a run whose results directory is
// shared: the rest are read from the file it wrote, none twice, and nothing is missing.
TEST(Session, AMemberThatDiesWhileSendingIsReadOnFromTheSharedDirectory) {
  const auto shared = std::filesystem::temp_directory_path() /
                      ("tokenbench_session_shared_" + std::to_string(::getpid()));
  std::filesystem::create_directories(shared);
  const std::vector<core::RequestRecord> theirs{record_at(1, 100), record_at(3, 200),
                                                record_at(5, 300)};
  {
    std::ofstream out(shared / rank_records_file(1, false));
    for (const auto& r : theirs) out << records::record_to_jsonl_line(r);
  }
  testing::LocalWorld world(2);
  const core::RunClock clock;
  std::thread follower([&world, &clock, &theirs] {
    testing::LocalComm comm(world, 1);
    report_one_level(comm, clock);
    // The first batch holds its first record; then it dies.
    ASSERT_TRUE(receive(comm, 0, Tag::kAsk).has_value());
    comm.send(0, Tag::kBatch, "L" + records::record_to_jsonl_line(theirs[0]));
    ASSERT_TRUE(receive(comm, 0, Tag::kAsk).has_value());
    world.lose(1);
  });
  testing::LocalComm comm(world, 0);
  Session leader(comm);
  leader.hear_hellos();
  leader.announce_level("x");
  ASSERT_TRUE(leader.common_start(clock, "", {}).has_value());
  std::vector<std::uint64_t> ids;
  LeaderShare own;
  own.files = {write_records("alone", {record_at(0, 150)})};
  const Merged m =
      merge_level(leader, own, leader.gather_reports(false), {shared.string()}, false,
                  [&ids](std::size_t, const core::RequestRecord& r) { ids.push_back(r.id); });
  follower.join();
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{0, 1, 3, 5}));
  EXPECT_FALSE(m.partial);
  const auto& row = m.distributed[0]["per_rank"][1];
  EXPECT_EQ(row["status"], "ok") << row.dump();
  EXPECT_EQ(row["requests"], 3) << row.dump();
  EXPECT_NE(row["why"].get<std::string>().find("the rest of its records were read from"),
            std::string::npos)
      << row.dump();
  EXPECT_TRUE(m.distributed[0]["missing"].empty());
  std::filesystem::remove_all(shared);
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
