// --probe-rate's own accounting, on hand-made probes: counts, failures, latencies from each
// probe's due time, model time, and telemetry.jsonl's form.

#include "tokenbench/telemetry/probe_account.h"

#include <gtest/gtest.h>

namespace tokenbench::telemetry {
namespace {

constexpr core::Nanos kMs = 1'000'000;

ProbeSample probe(double due_ms, double ttft_ms, double e2e_ms, std::string error = "") {
  ProbeSample s;
  s.scheduled = static_cast<core::Nanos>(due_ms * kMs);
  s.sent = s.scheduled + kMs / 10;
  s.first_token =
      error.empty() ? s.scheduled + static_cast<core::Nanos>(ttft_ms * kMs) : core::kNever;
  s.done = s.scheduled + static_cast<core::Nanos>(e2e_ms * kMs);
  s.status = error.empty() ? 200 : 503;
  s.error = std::move(error);
  return s;
}

TEST(ProbeAccount, CountsAndLatenciesFromTheDueTime) {
  const std::vector<ProbeSample> samples = {probe(0, 10, 12), probe(500, 30, 33),
                                            probe(1000, 20, 22), probe(1500, 0, 5, "HTTP 503")};
  const ProbeAccount a = account_probes(samples, 2, 1.0);
  EXPECT_EQ(a.sent, 4);
  EXPECT_EQ(a.completed, 3);
  EXPECT_EQ(a.failed, 1);
  EXPECT_EQ(a.first_error, "HTTP 503");
  EXPECT_EQ(a.ttft_ms, (std::vector<double>{10, 20, 30}));
  const nlohmann::json j = probe_account_to_json(a);
  EXPECT_DOUBLE_EQ(j["ttft_ms"]["p50"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(j["ttft_ms"]["mean"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(j["e2el_ms"]["max"].get<double>(), 33);
  EXPECT_EQ(j["rate"], 2.0);
  const std::string line = render_probe_account(a);
  EXPECT_NE(line.find("4 sent, 3 answered, 1 failed (HTTP 503); TTFT p50 20.0 ms"),
            std::string::npos)
      << line;
  // Under --sim-time the latencies are the model's: ten times the real ones at --time-scale 10.
  EXPECT_EQ(account_probes(samples, 2, 10.0).ttft_ms, (std::vector<double>{100, 200, 300}));
}

TEST(ProbeAccount, SamplesRoundTripThroughTheirJson) {
  const ProbeSample s = probe(250, 15, 18);
  const ProbeSample back = probe_sample_from_json(probe_sample_to_json(s));
  EXPECT_EQ(back.scheduled, s.scheduled);
  EXPECT_EQ(back.first_token, s.first_token);
  EXPECT_EQ(back.done, s.done);
  EXPECT_EQ(back.status, 200);
  const ProbeSample failed =
      probe_sample_from_json(probe_sample_to_json(probe(0, 0, 3, "HTTP 503")));
  EXPECT_EQ(failed.first_token, core::kNever);
  EXPECT_EQ(failed.error, "HTTP 503");
  EXPECT_THROW(probe_sample_from_json(nlohmann::json{{"sent_ns", "soon"}}), std::runtime_error);
}

}  // namespace
}  // namespace tokenbench::telemetry
