// The job figures (metrics/job_figures.h) of hand-made jobs whose answers are known.

#include "tokenbench/metrics/job_figures.h"

#include <gtest/gtest.h>

#include <array>

namespace tokenbench::metrics {
namespace {

constexpr std::array<double, 2> kPs{50, 95};

core::Nanos ms(double v) { return static_cast<core::Nanos>(v * 1e6); }

core::RequestRecord call(std::int64_t job, const char* id, std::vector<std::string> after,
                         double sent, double first, double done, double delay = 0,
                         std::int32_t depth = 0) {
  core::RequestRecord r;
  r.job.job = job;
  r.job.name = "trip";
  r.job.call = id;
  r.job.after = std::move(after);
  r.job.calls = 4;
  r.job.depth = depth;
  r.job.delay_ms = delay;
  r.sent = ms(sent);
  r.first_token = ms(first);
  r.last_token = ms(done);
  r.done = ms(done);
  r.chunks = {{ms(first), 1}, {ms(done), 1}};
  r.prompt_tokens = 10;
  r.output_tokens = 2;
  return r;
}

// plan, then s1 (after a 20 ms delay) and s2 side by side, then final after both.
std::vector<core::RequestRecord> trip(std::int64_t job, double at) {
  return {call(job, "plan", {}, at, at + 10, at + 50),
          call(job, "s2", {"plan"}, at + 50, at + 60, at + 120, 0, 1),
          call(job, "s1", {"plan"}, at + 70, at + 80, at + 150, 20, 1),
          call(job, "final", {"s1", "s2"}, at + 150, at + 160, at + 200, 0, 2)};
}

TEST(JobFigures, LatencyFinalTtftAndTheCriticalPathOfAKnownJob) {
  JobsBuilder b(kPs, 1000, 250.0);
  for (const auto& r : trip(0, 0)) b.add(r);
  for (const auto& r : trip(1, 1000)) b.add(r);
  auto late = trip(2, 2000);
  late[3].done = late[3].last_token = ms(2000 + 300);  // 300 ms: over the 250 ms objective
  late[3].chunks.back().t = late[3].done;
  for (const auto& r : late) b.add(r);
  const auto f = b.finish(3.0);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->jobs, 3);
  EXPECT_EQ(f->completed, 3);
  EXPECT_EQ(f->failed, 0);
  EXPECT_DOUBLE_EQ(f->job_ms.median, 200);
  EXPECT_DOUBLE_EQ(f->job_ms.max, 300);
  EXPECT_DOUBLE_EQ(f->final_ttft_ms.mean, 160);
  EXPECT_DOUBLE_EQ(f->jobs_per_s, 1.0);
  // 0.7 s of jobs in 3 s: 0.2333 jobs in progress; 3600 jobs/h over that.
  EXPECT_NEAR(f->mean_jobs_in_progress, 0.7 / 3, 1e-12);
  EXPECT_NEAR(f->jobs_per_hour_per_user, 3600 / (0.7 / 3), 1e-6);
  EXPECT_DOUBLE_EQ(f->mean_calls, 4);
  EXPECT_DOUBLE_EQ(f->mean_input_tokens, 40);
  EXPECT_DOUBLE_EQ(f->mean_output_tokens, 8);
  // final (50 ms, or 150 in the late job) <- s1, which ended after s2 (80 ms, delay 20) <- plan
  // (50 ms): 180 ms of LLM time and 20 of delay in 200.
  EXPECT_NEAR(f->mean_critical_llm_ms, (180 + 180 + 280) / 3.0, 1e-9);
  EXPECT_NEAR(f->mean_critical_delay_ms, 20, 1e-9);
  EXPECT_NEAR(f->mean_critical_other_ms, 0, 1e-9);
  EXPECT_NEAR(f->critical_llm_share, 640.0 / 700.0, 1e-12);
  EXPECT_EQ(f->good_jobs, 2);
  EXPECT_NEAR(f->job_goodput, 2 / 3.0, 1e-12);
  ASSERT_EQ(f->by_depth.size(), 3U);
  EXPECT_EQ(f->by_depth[1].key, "1");
  EXPECT_EQ(f->by_depth[1].completed, 6);
  EXPECT_DOUBLE_EQ(f->by_depth[1].ttft_ms.mean, 10);
  ASSERT_EQ(f->by_call.size(), 4U);
  EXPECT_EQ(f->by_call[0].key, "final");
  EXPECT_EQ(f->by_call[0].completed, 3);
}

TEST(JobFigures, AFailedCallFailsItsJobAndACutJobIsIncompleteWhateverTheOrder) {
  JobsBuilder b(kPs, 1000, std::nullopt);
  auto failed = trip(0, 0);
  failed[1].error = core::ErrorClass::kHttp5xx;  // s2 failed: final never sent
  b.add(failed[2]);
  b.add(failed[0]);
  b.add(failed[1]);
  auto cut = trip(1, 500);
  b.add(cut[0]);  // the run ended after plan
  auto whole = trip(2, 1000);
  for (auto it = whole.rbegin(); it != whole.rend(); ++it) b.add(*it);  // any order
  core::RequestRecord warm = trip(3, 0)[0];
  warm.phase = core::Phase::kWarmup;
  b.add(warm);
  const auto f = b.finish(2.0);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->jobs, 3);
  EXPECT_EQ(f->completed, 1);
  EXPECT_EQ(f->failed, 1);
  EXPECT_EQ(f->incomplete, 1);
  EXPECT_DOUBLE_EQ(f->job_ms.mean, 200);
  EXPECT_FALSE(f->slo_job_ms);
  EXPECT_FALSE(JobsBuilder(kPs, 10, std::nullopt).finish(1.0));
}

TEST(JobFigures, CallIdsAreListedInNaturalOrder) {
  JobsBuilder b(kPs, 1000, std::nullopt);
  double at = 0;
  for (const char* id : {"c10", "main.10", "c2", "c1", "main.9", "c01x", "c1x"}) {
    auto r = call(0, id, {}, at, at + 1, at + 2);
    r.job.calls = 7;
    b.add(r);
    at += 3;
  }
  const auto f = b.finish(1.0);
  ASSERT_TRUE(f);
  std::vector<std::string> keys;
  for (const auto& g : f->by_call) keys.push_back(g.key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"c1", "c1x", "c01x", "c2", "c10", "main.9", "main.10"}));
}

}  // namespace
}  // namespace tokenbench::metrics
