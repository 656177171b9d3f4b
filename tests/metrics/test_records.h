#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "tokenbench/core/request.h"

namespace tokenbench::test_records {

inline constexpr core::Nanos kMs = 1'000'000;

/// A successful streamed measure-phase record: sent at `sent_ms`, content chunks at the given
/// (ms, tokens), transfer end at `done_ms`. Output tokens are the chunk token sum (usage).
inline core::RequestRecord streamed_record(std::uint64_t id, double scheduled_ms, double sent_ms,
                                           std::vector<std::pair<double, int>> chunks,
                                           double done_ms, std::int64_t prompt_tokens) {
  core::RequestRecord r;
  r.id = id;
  r.phase = core::Phase::kMeasure;
  r.streamed = true;
  r.scheduled = static_cast<core::Nanos>(scheduled_ms * kMs);
  r.sent = static_cast<core::Nanos>(sent_ms * kMs);
  r.headers = r.sent + kMs;
  for (const auto& [t_ms, tokens] : chunks) {
    r.chunks.push_back(core::ChunkStamp{static_cast<core::Nanos>(t_ms * kMs), tokens});
    r.output_tokens += tokens;
  }
  if (!r.chunks.empty()) {
    r.first_token = r.chunks.front().t;
    r.last_token = r.chunks.back().t;
  }
  r.done = static_cast<core::Nanos>(done_ms * kMs);
  r.prompt_tokens = prompt_tokens;
  r.prompt_source = core::TokenSource::kUsage;
  r.output_source = core::TokenSource::kUsage;
  r.http_status = 200;
  r.finish_reason = "length";
  return r;
}

/// A failed measure-phase record.
inline core::RequestRecord failed_record(std::uint64_t id, double sent_ms, double done_ms,
                                         core::ErrorClass error, int http_status,
                                         std::string message) {
  core::RequestRecord r;
  r.id = id;
  r.scheduled = static_cast<core::Nanos>(sent_ms * kMs);
  r.sent = r.scheduled;
  r.done = static_cast<core::Nanos>(done_ms * kMs);
  r.error = error;
  r.http_status = http_status;
  r.error_message = std::move(message);
  return r;
}

/// The hand-computed run used by the summary, JSON and console tests (see summary_test.cpp):
/// two successes (TTFT 100 and 200 ms, E2EL 120 and 260 ms, TPOT 10 and 20 ms, ITL 10,10 and
/// 20,20,20 ms), one HTTP 503 failure, one warmup request; measure phase 0 .. 400 ms.
inline std::vector<core::RequestRecord> hand_built_run() {
  std::vector<core::RequestRecord> records;
  core::RequestRecord warm = streamed_record(0, 0, 0, {{5, 1}, {9000, 1}}, 9000, 999);
  warm.phase = core::Phase::kWarmup;
  records.push_back(warm);
  records.push_back(streamed_record(1, 0, 0, {{100, 1}, {110, 1}, {120, 1}}, 125, 10));
  records.push_back(streamed_record(2, 50, 50, {{250, 1}, {270, 1}, {290, 1}, {310, 1}}, 320, 20));
  records.push_back(
      failed_record(3, 100, 400, core::ErrorClass::kHttp5xx, 503, "Service Unavailable"));
  return records;
}

}  // namespace tokenbench::test_records
