// --sim-time: a run's records in the simulated model's time. The server's part of each request
// is scaled; the client's own queue time never is.

#include "tokenbench/metrics/model_time.h"

#include <gtest/gtest.h>

#include "tokenbench/metrics/request_metrics.h"

namespace tokenbench::metrics {
namespace {

constexpr core::Nanos kMs = 1'000'000;

core::RequestRecord streamed_record() {
  core::RequestRecord r;
  r.intended = 100 * kMs;
  r.scheduled = 102 * kMs;           // waited 2 ms for a slot
  r.sent = r.scheduled + 1'300'000;  // 1.3 ms of the client's own queue time
  r.connected = r.sent + kMs;
  r.headers = r.sent + 3 * kMs;
  r.first_reasoning = r.sent + 10 * kMs;
  r.first_answer = r.sent + 20 * kMs;
  r.first_token = r.first_reasoning;
  r.chunks = {{r.first_token, 1}, {r.first_token + 2 * kMs, 1}, {r.sent + 20 * kMs, 1}};
  r.last_token = r.chunks.back().t;
  r.done = r.last_token + kMs;
  r.output_tokens = 3;
  r.server_timings = core::ServerTimings{0, 64, 9.0, 3, 10.0};
  return r;
}

TEST(ModelTime, FactorIsTheSimulatorsScaleOnlyUnderSimTime) {
  core::RunConfig config;
  config.sim_time_scale = 10;
  EXPECT_EQ(model_time_factor(config), 1.0);  // a sped-up simulator, reported in real time
  config.sim_time = true;
  EXPECT_EQ(model_time_factor(config), 10.0);
  config.sim_time_scale = 1;
  EXPECT_EQ(model_time_factor(config), 1.0);
}

TEST(ModelTime, TheServersPartIsScaledTheClientsQueueTimeIsNot) {
  const core::RequestRecord real = streamed_record();
  const auto model = in_model_time({real}, 10);
  ASSERT_EQ(model.size(), 1u);
  const core::RequestRecord& m = model[0];
  // The client's own: unchanged.
  EXPECT_EQ(*queue_time_ms(m), *queue_time_ms(real));
  EXPECT_DOUBLE_EQ(*queue_time_ms(m), 1.3);
  // The wait for a slot and everything from the send on: ten times longer.
  EXPECT_EQ(m.intended, 1000 * kMs);
  EXPECT_EQ(m.scheduled, 1020 * kMs);
  EXPECT_EQ(m.sent, 1020 * kMs + 1'300'000);
  EXPECT_DOUBLE_EQ(*ttft_ms(m), 100.0);
  EXPECT_DOUBLE_EQ(*ttfr_ms(m), 100.0);
  EXPECT_DOUBLE_EQ(*ttfa_ms(m), 200.0);
  EXPECT_DOUBLE_EQ(*e2el_ms(m), 200.0);
  EXPECT_EQ(m.connected - m.sent, 10 * kMs);
  EXPECT_EQ(m.headers - m.sent, 30 * kMs);
  EXPECT_EQ(m.done - m.last_token, 10 * kMs);
  EXPECT_EQ(itl_ms(m), (std::vector<double>{20.0, 80.0}));
  EXPECT_EQ(m.server_timings->prompt_ms, 90.0);
  EXPECT_EQ(m.server_timings->predicted_ms, 100.0);
  // A factor of 1 changes nothing.
  EXPECT_EQ(in_model_time({real}, 1.0)[0].done, real.done);
}

TEST(ModelTime, MissingStampsStayMissing) {
  core::RequestRecord never_sent;
  never_sent.scheduled = 5 * kMs;
  core::RequestRecord closed_loop = streamed_record();
  closed_loop.intended = core::kNever;
  closed_loop.scheduled = core::kNever;  // no schedule: the send is the first stamp
  const auto model = in_model_time({never_sent, closed_loop}, 4);
  EXPECT_EQ(model[0].scheduled, 20 * kMs);
  EXPECT_EQ(model[0].sent, core::kNever);
  EXPECT_EQ(model[0].done, core::kNever);
  EXPECT_EQ(model[1].intended, core::kNever);
  EXPECT_EQ(model[1].sent, 4 * closed_loop.sent);
  EXPECT_DOUBLE_EQ(*ttft_ms(model[1]), 40.0);
}

}  // namespace
}  // namespace tokenbench::metrics
