#include "tokenbench/client/request_id.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

namespace tokenbench::client {
namespace {

TEST(RequestIdTest, HeadersHaveTheW3CFormat) {
  const TraceId trace = make_trace_id(0x0123456789abcdefULL, core::Phase::kMeasure, 0, 7);
  IdHeaders h;
  h.fill(trace, 0);
  const std::string request_id(h.request_id.data());
  const std::string traceparent(h.traceparent.data());
  EXPECT_EQ(request_id, "X-Request-Id: " + request_id_text(trace));
  EXPECT_TRUE(std::regex_match(request_id, std::regex("X-Request-Id: [0-9a-f]{32}"))) << request_id;
  EXPECT_TRUE(
      std::regex_match(traceparent, std::regex("traceparent: 00-[0-9a-f]{32}-[0-9a-f]{16}-01")))
      << traceparent;
  // The trace id is the request id, and begins with the run id.
  EXPECT_EQ(traceparent.substr(16, 32), request_id_text(trace));
  EXPECT_EQ(request_id_text(trace).substr(0, 16), "0123456789abcdef");
  EXPECT_EQ(request_id.size(), IdHeaders::kRequestIdLen);
  EXPECT_EQ(traceparent.size(), IdHeaders::kTraceparentLen);
}

TEST(RequestIdTest, AttemptsKeepTheTraceAndChangeTheSpan) {
  const TraceId trace = make_trace_id(42, core::Phase::kMeasure, 0, 3);
  IdHeaders first;
  IdHeaders retry;
  first.fill(trace, 0);
  retry.fill(trace, 1);
  EXPECT_STREQ(first.request_id.data(), retry.request_id.data());
  const std::string a(first.traceparent.data());
  const std::string b(retry.traceparent.data());
  EXPECT_EQ(a.substr(0, 48), b.substr(0, 48));
  EXPECT_NE(a.substr(49, 16), b.substr(49, 16));
  EXPECT_NE(make_span_id(trace, 0), 0u);
}

TEST(RequestIdTest, TenThousandIdsOfOneRunAreDistinct) {
  const std::uint64_t run = new_run_id();
  std::set<std::string> ids;
  std::set<std::uint64_t> spans;
  for (std::uint64_t id = 0; id < 4000; ++id) {
    for (const auto phase : {core::Phase::kWarmup, core::Phase::kMeasure}) {
      ids.insert(request_id_text(make_trace_id(run, phase, 0, id)));
    }
  }
  for (std::uint64_t id = 0; id < 2000; ++id) {
    const TraceId t = make_trace_id(run, core::Phase::kMeasure, 1, id);  // a second target
    ids.insert(request_id_text(t));
    spans.insert(make_span_id(t, 0));
  }
  EXPECT_EQ(ids.size(), 10000u);
  EXPECT_EQ(spans.size(), 2000u);
}

TEST(RequestIdTest, RunsDiffer) {
  const std::uint64_t a = new_run_id();
  const std::uint64_t b = new_run_id();
  EXPECT_NE(a, b);
  EXPECT_NE(a, 0u);
  EXPECT_NE(request_id_text(make_trace_id(a, core::Phase::kMeasure, 0, 0)),
            request_id_text(make_trace_id(b, core::Phase::kMeasure, 0, 0)));
}

}  // namespace
}  // namespace tokenbench::client
