#include "tokenbench/driver/session_driver.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tokenbench::driver {
namespace {

using load::ArrivalSchedule;
using load::parse_think_time;

std::vector<workload::Session> three_sessions(int turns) {
  std::vector<workload::Session> sessions(3);
  for (std::size_t s = 0; s < sessions.size(); ++s) {
    for (int t = 0; t < turns; ++t) {
      core::RequestSpec spec;
      spec.prompt = "s" + std::to_string(s) + "t" + std::to_string(t);
      spec.max_tokens = 4;
      spec.input_tokens = 1;
      sessions[s].turns.push_back(spec);
    }
  }
  return sessions;
}

core::RequestRecord reply(const SessionDriver::Turn& turn, core::Nanos done,
                          const std::string& answer) {
  core::RequestRecord r;
  r.session = turn.session;
  r.turn = turn.turn;
  r.done = done;
  r.answer_text = answer;
  return r;
}

nlohmann::json messages_of(const SessionDriver::Turn& turn) {
  return nlohmann::json::parse(*turn.body)["messages"];
}

TEST(SessionDriver, EachTurnCarriesTheRepliesReceivedInOrder) {
  const auto sessions = three_sessions(3);
  const auto schedule = ArrivalSchedule::immediate(1);
  SessionOptions options;
  options.body.model = "m";
  SessionDriver driver(sessions, schedule, 0, core::kNever, options);
  SessionDriver::Turn turn;
  core::Nanos next = 0;
  bool finished = false;
  ASSERT_TRUE(driver.take(0, turn, next, finished));
  EXPECT_EQ(turn.session, 0);
  EXPECT_EQ(turn.turn, 0);
  EXPECT_EQ(messages_of(turn), nlohmann::json::parse(R"([{"role":"user","content":"s0t0"}])"));
  // One session, its turn in flight: nothing more until it ends.
  EXPECT_FALSE(driver.take(0, turn, next, finished));
  EXPECT_FALSE(finished);
  EXPECT_EQ(next, core::kNever);

  driver.done(reply(turn, 1000, "first answer"));
  ASSERT_TRUE(driver.take(1000, turn, next, finished));
  EXPECT_EQ(turn.turn, 1);
  EXPECT_EQ(messages_of(turn), nlohmann::json::parse(R"([
      {"role":"user","content":"s0t0"},{"role":"assistant","content":"first answer"},
      {"role":"user","content":"s0t1"}])"));
  EXPECT_EQ(turn.spec->input_source, core::TokenSource::kApproximate);
  EXPECT_EQ(turn.spec->input_tokens, 1 + 1 + 2);  // both user turns, and the reply's 2 words

  driver.done(reply(turn, 2000, "second"));
  ASSERT_TRUE(driver.take(2000, turn, next, finished));
  EXPECT_EQ(turn.turn, 2);
  const auto m = messages_of(turn);
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[1]["content"], "first answer");
  EXPECT_EQ(m[3]["content"], "second");
  EXPECT_EQ(m[4]["content"], "s0t2");
  driver.done(reply(turn, 3000, "third"));
  EXPECT_FALSE(driver.take(3000, turn, next, finished));
  EXPECT_TRUE(finished);
}

TEST(SessionDriver, ThinkTimeDelaysTheNextTurnAndIsRepeatable) {
  const auto sessions = three_sessions(2);
  const auto schedule = ArrivalSchedule::immediate(1);
  SessionOptions options;
  options.think = parse_think_time("uniform:1,2");
  options.seed = 7;
  SessionDriver driver(sessions, schedule, 0, core::kNever, options);
  SessionDriver::Turn turn;
  core::Nanos next = 0;
  bool finished = false;
  ASSERT_TRUE(driver.take(0, turn, next, finished));
  driver.done(reply(turn, 5'000'000'000, "a"));
  const double think = options.think.seconds(7, 0, 1);
  EXPECT_GE(think, 1.0);
  EXPECT_LT(think, 2.0);
  EXPECT_EQ(think, options.think.seconds(7, 0, 1));
  EXPECT_NE(think, options.think.seconds(8, 0, 1));
  const auto due = 5'000'000'000 + static_cast<core::Nanos>(think * 1e9);
  EXPECT_FALSE(driver.take(5'000'000'000, turn, next, finished));
  EXPECT_EQ(next, due);
  ASSERT_TRUE(driver.take(due, turn, next, finished));
  EXPECT_EQ(turn.turn, 1);
  EXPECT_EQ(turn.due, due);
}

TEST(SessionDriver, SessionLimitAndFailedTurnEndsItsSession) {
  const auto sessions = three_sessions(2);
  const auto schedule = ArrivalSchedule::immediate(3);
  SessionOptions options;
  options.max_units = 2;
  SessionDriver driver(sessions, schedule, 0, core::kNever, options);
  SessionDriver::Turn a, b, c;
  core::Nanos next = 0;
  bool finished = false;
  ASSERT_TRUE(driver.take(0, a, next, finished));
  ASSERT_TRUE(driver.take(0, b, next, finished));
  EXPECT_FALSE(driver.take(0, c, next, finished));  // two sessions under way: the limit
  EXPECT_EQ(driver.started(), 2u);
  auto failed = reply(a, 10, "");
  failed.error = core::ErrorClass::kHttp5xx;
  driver.done(failed);  // session 0 ends at its failed first turn
  ASSERT_TRUE(driver.take(10, c, next, finished));
  EXPECT_EQ(c.session, 2);
  EXPECT_EQ(c.turn, 0);
  EXPECT_EQ(driver.started(), 3u);
}

// A distributed run's rank (position 1 of 2) starts sessions 1, 3, 5 of the schedule, each at
// its own arrival, and numbers its turns so that no other rank's ids collide with them.
TEST(SessionDriver, AShardStartsItsSessionsOnlyWithIdsOfItsOwn) {
  const auto sessions = three_sessions(2);
  const auto schedule =
      ArrivalSchedule::open_loop(6, 0, 1000.0, core::ArrivalKind::kConstant, 1.0, 0);
  SessionOptions options;
  options.shard = load::Shard{1, 2};
  SessionDriver driver(sessions, schedule, 0, core::kNever, options);
  SessionDriver::Turn turn;
  core::Nanos next = 0;
  bool finished = false;
  std::vector<std::int64_t> started;
  std::vector<std::uint64_t> ids;
  core::Nanos now = 0;
  while (true) {
    if (driver.take(now, turn, next, finished)) {
      if (turn.turn == 0) {
        started.push_back(turn.session);
        EXPECT_EQ(now, schedule.offset(static_cast<std::size_t>(turn.session)));
      }
      ids.push_back(turn.id);
      driver.done(reply(turn, now, "ok"));
      continue;
    }
    if (finished) break;
    ASSERT_NE(next, core::kNever);
    now = next;
  }
  EXPECT_EQ(started, (std::vector<std::int64_t>{1, 3, 5}));
  EXPECT_EQ(driver.started(), 3u);
  ASSERT_EQ(ids.size(), 6u);
  for (std::size_t k = 0; k < ids.size(); ++k) EXPECT_EQ(ids[k], 2 * k + 1);
}

}  // namespace
}  // namespace tokenbench::driver
