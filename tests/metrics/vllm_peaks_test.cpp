// vLLM's max_output_tokens_per_s and max_concurrent_requests on hand-made records, with vLLM's
// definitions (vllm/benchmarks/serve.py, calculate_metrics).

#include "tokenbench/metrics/vllm_peaks.h"

#include <gtest/gtest.h>

#include <vector>

namespace tokenbench::metrics {
namespace {

constexpr core::Nanos kMs = 1'000'000;

core::RequestRecord request(double sent_s, std::vector<double> chunks_s, bool ok = true) {
  core::RequestRecord r;
  r.phase = core::Phase::kMeasure;
  r.streamed = true;
  r.sent = static_cast<core::Nanos>(sent_s * 1000) * kMs;
  for (const double t : chunks_s) r.chunks.push_back({static_cast<core::Nanos>(t * 1000) * kMs, 3});
  r.first_token = r.chunks.front().t;
  r.last_token = r.chunks.back().t;
  r.done = r.last_token + 5 * kMs;  // [DONE] after the last content chunk: not vLLM's end
  if (!ok) r.error = core::ErrorClass::kHttp5xx;
  return r;
}

// A [0, 1.2) with chunks at 0.5, 0.8, 1.2; B [0.3, 1.15) with 0.9, 1.1, 1.15; C [1.3, 2.5) with
// 1.4, 2.5; a failed request, ignored.
std::vector<core::RequestRecord> records() {
  return {request(0.3, {0.9, 1.1, 1.15}), request(0.0, {0.5, 0.8, 1.2}), request(1.3, {1.4, 2.5}),
          request(0.1, {0.2, 0.25, 0.3, 0.35, 0.4}, false)};
}

TEST(VllmPeaks, ChunksPerWholeSecondFromTheFirstSendAndAHalfOpenSweep) {
  VllmPeaksBuilder b;
  for (const auto& r : records()) b.add(r);
  const VllmPeaks p = b.finish();
  EXPECT_TRUE(p.exact);
  // Seconds from 0: [0, 1) holds 0.5, 0.8, 0.9; [1, 2) holds 1.1, 1.15, 1.2, 1.4; [2, 3) 2.5. A
  // chunk counts once whatever its tokens (vLLM's token times are its chunks).
  EXPECT_EQ(p.max_output_tokens_per_s, 4.0);
  // A and B overlap; C starts after both ended.
  EXPECT_EQ(p.max_concurrent_requests, 2);
}

TEST(VllmPeaks, OneEndingAsAnotherStartsDoesNotOverlapIt) {
  VllmPeaksBuilder b;
  b.add(request(1.0, {1.5, 2.0}));
  b.add(request(2.0, {2.5, 3.0}));  // sent the instant the first's last chunk came
  EXPECT_EQ(b.finish().max_concurrent_requests, 1);
  EXPECT_EQ(VllmPeaksBuilder().finish().max_concurrent_requests, 0);
  EXPECT_FALSE(is_defined(VllmPeaksBuilder().finish().max_output_tokens_per_s));
}

TEST(VllmPeaks, PastItsLimitsItCountsChunksIn10MsStepsAndTheEnginesInFlight) {
  VllmPeaksBuilder b(1, 1 << 20);  // exact for one request only
  auto rs = records();
  for (std::size_t i = 0; i < rs.size(); ++i) rs[i].in_flight = static_cast<std::int64_t>(i + 1);
  for (const auto& r : rs) b.add(r);
  const VllmPeaks p = b.finish();
  EXPECT_FALSE(p.exact);
  EXPECT_EQ(p.max_output_tokens_per_s, 4.0);  // no chunk within 10 ms of a second's edge
  EXPECT_EQ(p.max_concurrent_requests, 3);    // the most in_flight of the successful ones
}

}  // namespace
}  // namespace tokenbench::metrics
