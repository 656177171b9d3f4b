// driver::JobDriver on its own, without an engine: the order and times at which a job's calls
// come due, the job limit, a failure in the middle of a fan-out, the deadline.

#include "tokenbench/driver/job_driver.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tokenbench::driver {
namespace {

using load::ArrivalSchedule;

constexpr core::Nanos kMs = 1'000'000;

// plan; a and b after it (b 5 ms later); final after both, taking a's reply.
workload::Job fan_out() {
  return workload::parse_job(nlohmann::json::parse(R"({"job": "j", "calls": [
    {"id": "plan", "messages": [{"role": "user", "content": "p"}]},
    {"id": "a", "after": ["plan"], "messages": [{"role": "user", "content": "a"}]},
    {"id": "b", "after": ["plan"], "delay_ms": 5, "messages": [{"role": "user", "content": "b"}]},
    {"id": "final", "after": ["a", "b"], "messages": [
      {"role": "assistant", "from": "a"}, {"role": "user", "content": "f"}]}]})")
                                 .dump(),
                             4, 1);
}

core::RequestRecord ended(const JobDriver::Call& call, core::Nanos done, bool ok = true,
                          const std::string& answer = "") {
  core::RequestRecord r;
  r.id = call.id;
  r.job = *call.tag;
  r.done = done;
  r.answer_text = answer;
  if (!ok) r.error = core::ErrorClass::kHttp5xx;
  return r;
}

struct Taken {
  bool got = false;
  JobDriver::Call call;
  core::Nanos next = core::kNever;
  bool finished = false;
};

Taken take(JobDriver& driver, core::Nanos now) {
  Taken t;
  t.got = driver.take(now, t.call, t.next, t.finished);
  return t;
}

TEST(JobDriver, CallsComeDueAsTheirDependenciesEndPlusTheirDelays) {
  const std::vector<workload::Job> jobs{fan_out()};
  const auto schedule = ArrivalSchedule::immediate(1);
  JobDriver driver(jobs, schedule, 0, core::kNever, JobOptions{});
  Taken plan = take(driver, 0);
  ASSERT_TRUE(plan.got);
  EXPECT_EQ(plan.call.tag->call, "plan");
  EXPECT_TRUE(plan.call.root);
  Taken none = take(driver, 0);
  EXPECT_FALSE(none.got);
  EXPECT_FALSE(none.finished);
  EXPECT_EQ(none.next, core::kNever);  // nothing known until plan ends

  driver.done(ended(plan.call, 10 * kMs));
  Taken a = take(driver, 10 * kMs);
  ASSERT_TRUE(a.got);
  EXPECT_EQ(a.call.tag->call, "a");
  EXPECT_EQ(a.call.due, 10 * kMs);
  EXPECT_FALSE(a.call.root);
  // b waits 5 ms after plan's end.
  Taken early = take(driver, 12 * kMs);
  EXPECT_FALSE(early.got);
  EXPECT_EQ(early.next, 15 * kMs);
  Taken b = take(driver, 15 * kMs);
  ASSERT_TRUE(b.got);
  EXPECT_EQ(b.call.tag->call, "b");
  EXPECT_EQ(b.call.due, 15 * kMs);

  // final waits for both, and carries a's reply.
  driver.done(ended(b.call, 20 * kMs));
  EXPECT_FALSE(take(driver, 20 * kMs).got);
  driver.done(ended(a.call, 30 * kMs, true, "a's answer"));
  Taken final = take(driver, 30 * kMs);
  ASSERT_TRUE(final.got);
  EXPECT_EQ(final.call.tag->call, "final");
  EXPECT_EQ(final.call.due, 30 * kMs);
  EXPECT_EQ(final.call.tag->after, (std::vector<std::string>{"a", "b"}));
  const auto messages = nlohmann::json::parse(*final.call.body)["messages"];
  EXPECT_EQ(messages[0], (nlohmann::json{{"role", "assistant"}, {"content", "a's answer"}}));
  driver.done(ended(final.call, 40 * kMs));
  EXPECT_TRUE(take(driver, 40 * kMs).finished);
  EXPECT_EQ(driver.started(), 1U);
}

TEST(JobDriver, AJobLimitHoldsTheNextJobUntilOneEndsAndAFailureEndsItsJob) {
  const std::vector<workload::Job> jobs{fan_out()};
  const auto schedule = ArrivalSchedule::immediate(2);
  JobOptions options;
  options.max_units = 1;
  JobDriver driver(jobs, schedule, 0, core::kNever, options);
  Taken plan = take(driver, 0);
  ASSERT_TRUE(plan.got);
  EXPECT_EQ(plan.call.tag->job, 0);
  EXPECT_FALSE(take(driver, 0).got);  // job 1 waits for room
  driver.done(ended(plan.call, 10 * kMs));
  Taken a = take(driver, 10 * kMs);
  ASSERT_TRUE(a.got);
  // a fails while b is still to come: b and final are never sent, and the job ends when no call
  // of it is in flight; job 1 then starts, due when job 0 ended.
  driver.done(ended(a.call, 12 * kMs, false));
  Taken next = take(driver, 20 * kMs);
  ASSERT_TRUE(next.got);
  EXPECT_EQ(next.call.tag->job, 1);
  EXPECT_EQ(next.call.tag->call, "plan");
  EXPECT_EQ(next.call.due, 12 * kMs);
  EXPECT_EQ(driver.started(), 2U);
}

TEST(JobDriver, NoCallIsHandedOutAtOrAfterTheDeadline) {
  const std::vector<workload::Job> jobs{fan_out()};
  const auto schedule = ArrivalSchedule::immediate(ArrivalSchedule::kUnbounded);
  JobDriver driver(jobs, schedule, 0, 50 * kMs, JobOptions{});
  Taken plan = take(driver, 0);
  ASSERT_TRUE(plan.got);
  driver.done(ended(plan.call, 60 * kMs));
  const Taken late = take(driver, 60 * kMs);
  EXPECT_FALSE(late.got);
  EXPECT_TRUE(late.finished);
}

// A call that waits for none but has a delay (a trace's second root, which began later) is sent
// its delay after the job's start.
TEST(JobDriver, ARootCallWithADelayIsDueThatLongAfterItsJobStarts) {
  const std::vector<workload::Job> jobs{workload::parse_job(R"({"job": "j", "calls": [
    {"id": "a", "messages": [{"role": "user", "content": "a"}]},
    {"id": "b", "delay_ms": 7, "messages": [{"role": "user", "content": "b"}]}]})",
                                                            4, 1)};
  const auto schedule = ArrivalSchedule::immediate(1);
  JobDriver driver(jobs, schedule, 0, core::kNever, JobOptions{});
  const Taken a = take(driver, 0);
  ASSERT_TRUE(a.got);
  EXPECT_EQ(a.call.tag->call, "a");
  const Taken early = take(driver, 1 * kMs);
  EXPECT_FALSE(early.got);
  EXPECT_EQ(early.next, 7 * kMs);
  const Taken b = take(driver, 7 * kMs);
  ASSERT_TRUE(b.got);
  EXPECT_EQ(b.call.tag->call, "b");
  EXPECT_EQ(b.call.due, 7 * kMs);
  EXPECT_TRUE(b.call.root);
}

}  // namespace
}  // namespace tokenbench::driver
