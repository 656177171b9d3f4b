#include "tokenbench/metrics/peer_views.h"

#include <gtest/gtest.h>

#include <cmath>

#include "test_records.h"
#include "tokenbench/metrics/percentile.h"

namespace tokenbench::metrics {
namespace {

// The hand-built run (test_records.h): two successes, sent at 0 and 50 ms,
//   #1 content chunks at 100, 110, 120 ms (1 token each), transfer end 125 ms;
//   #2 content chunks at 250, 270, 290, 310 ms (1 token each), transfer end 320 ms;
// a 503 ending at 400 ms and a warmup request, both left out of every distribution.
// tokenbench: TTFT {100, 200}, TPOT {10, 20}, ITL {10, 10, 20, 20, 20}, E2EL {120, 260};
// duration 0.4 s, 7 output tokens: 17.5 tok/s.

const PeerRow& row(const PeerView& v, const std::string& figure) {
  for (const PeerRow& r : v.rows) {
    if (r.figure == figure) return r;
  }
  ADD_FAILURE() << "no row " << figure;
  static const PeerRow none;
  return none;
}

double peer(const PeerView& v, const std::string& figure) { return row(v, figure).peer; }
double mine(const PeerView& v, const std::string& figure) { return row(v, figure).tokenbench; }

TEST(PeerViews, Names) {
  for (const char* n : {"vllm", "sglang", "guidellm", "evalscope", "aiperf", "llmperf"}) {
    const auto p = peer_from_string(n);
    ASSERT_TRUE(p) << n;
    EXPECT_EQ(to_string(*p), n);
  }
  EXPECT_FALSE(peer_from_string("genai-perf"));
  EXPECT_FALSE(peer_from_string("VLLM"));
}

TEST(PeerViews, FloorIndexPercentileIsEvalScopes) {
  EXPECT_TRUE(std::isnan(floor_index_percentile({}, 50)));
  const std::vector<double> v = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(floor_index_percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(floor_index_percentile(v, 24), 1);  // index floor(0.96) = 0
  EXPECT_DOUBLE_EQ(floor_index_percentile(v, 25), 2);  // index floor(1) = 1, as EvalScope's
  EXPECT_DOUBLE_EQ(floor_index_percentile(v, 50), 3);  // int(4 * 50 / 100) = 2
  EXPECT_DOUBLE_EQ(floor_index_percentile(v, 99), 4);
  EXPECT_DOUBLE_EQ(floor_index_percentile(v, 100), 4);
}

TEST(PeerViews, TokenbenchColumnIsTheSummary) {
  const PeerView v = peer_view(Peer::kVllm, test_records::hand_built_run());
  EXPECT_EQ(v.requests, 2u);
  EXPECT_DOUBLE_EQ(mine(v, "TTFT mean (ms)"), 150);
  EXPECT_DOUBLE_EQ(mine(v, "TTFT p90 (ms)"), 190);
  EXPECT_DOUBLE_EQ(mine(v, "TPOT mean (ms)"), 15);
  EXPECT_DOUBLE_EQ(mine(v, "ITL mean (ms)"), 16);
  EXPECT_DOUBLE_EQ(mine(v, "E2EL p50 (ms)"), 190);
  EXPECT_DOUBLE_EQ(mine(v, "output throughput (tok/s)"), 17.5);
}

TEST(PeerViews, VllmMatchesTokenbench) {
  const PeerView v = peer_view(Peer::kVllm, test_records::hand_built_run());
  for (const PeerRow& r : v.rows) EXPECT_DOUBLE_EQ(r.peer, r.tokenbench) << r.figure;
  EXPECT_NE(row(v, "TTFT mean (ms)").definition.find("role"), std::string::npos);
  EXPECT_NE(row(v, "TTFT mean (ms)").source.find("vllm-project/vllm"), std::string::npos);
}

TEST(PeerViews, SglangEndsAtDone) {
  const PeerView v = peer_view(Peer::kSglang, test_records::hand_built_run());
  EXPECT_DOUBLE_EQ(peer(v, "TTFT mean (ms)"), 150);
  EXPECT_DOUBLE_EQ(peer(v, "E2EL mean (ms)"), (125.0 + 270.0) / 2);  // to [DONE]
  EXPECT_DOUBLE_EQ(peer(v, "TPOT mean (ms)"), (25.0 / 2 + 70.0 / 3) / 2);
  EXPECT_DOUBLE_EQ(peer(v, "ITL mean (ms)"), 16);
}

TEST(PeerViews, GuidellmTpotIncludesFirstToken) {
  const PeerView v = peer_view(Peer::kGuidellm, test_records::hand_built_run());
  EXPECT_DOUBLE_EQ(peer(v, "TPOT mean (ms)"), (120.0 / 3 + 260.0 / 4) / 2);  // 40 and 65
  EXPECT_DOUBLE_EQ(peer(v, "TPOT p50 (ms)"), 52.5);
  EXPECT_DOUBLE_EQ(peer(v, "ITL mean (ms)"), 15);  // per request: 10 and 20
  EXPECT_DOUBLE_EQ(peer(v, "ITL p90 (ms)"), 19);
  EXPECT_DOUBLE_EQ(peer(v, "E2EL mean (ms)"), 197.5);
}

TEST(PeerViews, EvalscopeFloorIndex) {
  const PeerView v = peer_view(Peer::kEvalscope, test_records::hand_built_run());
  EXPECT_DOUBLE_EQ(peer(v, "TTFT mean (ms)"), 150);
  EXPECT_DOUBLE_EQ(peer(v, "TTFT p50 (ms)"), 200);  // index int(2 * 50 / 100) = 1, not 150
  EXPECT_DOUBLE_EQ(peer(v, "TTFT p90 (ms)"), 200);
  EXPECT_DOUBLE_EQ(peer(v, "TPOT p50 (ms)"), 70.0 / 3);  // index 1 of {12.5, (270 - 200) / 3}
  EXPECT_DOUBLE_EQ(peer(v, "ITL p50 (ms)"), 20);         // index 2 of {10, 10, 20, 20, 20}
  EXPECT_DOUBLE_EQ(peer(v, "E2EL p99 (ms)"), 270);
}

TEST(PeerViews, AiperfItlIsTpot) {
  const PeerView v = peer_view(Peer::kAiperf, test_records::hand_built_run());
  EXPECT_DOUBLE_EQ(peer(v, "TPOT mean (ms)"), 15);
  EXPECT_NE(row(v, "TPOT mean (ms)").definition.find("inter_token_latency"), std::string::npos);
  EXPECT_DOUBLE_EQ(peer(v, "E2EL mean (ms)"), 190);  // last content response
  EXPECT_DOUBLE_EQ(peer(v, "ITL mean (ms)"), 16);
}

TEST(PeerViews, LlmperfItlFoldsTtft) {
  const PeerView v = peer_view(Peer::kLlmperf, test_records::hand_built_run());
  EXPECT_DOUBLE_EQ(peer(v, "ITL mean (ms)"), 52.5);  // 120 / 3 and 260 / 4
  EXPECT_TRUE(std::isnan(peer(v, "TPOT mean (ms)")));
  EXPECT_DOUBLE_EQ(peer(v, "E2EL mean (ms)"), 197.5);
  EXPECT_DOUBLE_EQ(peer(v, "output throughput (tok/s)"), 17.5);
}

TEST(PeerViews, RenderShowsBothColumnsAndDefinitions) {
  const std::string text =
      render_peer_view(peer_view(Peer::kGuidellm, test_records::hand_built_run()));
  EXPECT_NE(text.find("Peer view: guidellm definitions (2 requests)"), std::string::npos);
  EXPECT_NE(text.find("TPOT mean (ms)"), std::string::npos);
  EXPECT_NE(text.find("52.500"), std::string::npos);
  EXPECT_NE(text.find("+37.500"), std::string::npos);  // 52.5 - 15
  EXPECT_NE(text.find("INCLUDING the first token"), std::string::npos);
  EXPECT_NE(text.find("Source: vllm-project/guidellm"), std::string::npos);
}

TEST(PeerViews, TableGolden) {
  const std::string text =
      render_peer_view(peer_view(Peer::kGuidellm, test_records::hand_built_run()));
  const std::string table =
      "Peer view: guidellm definitions (2 requests)\n"
      "figure                         tokenbench     guidellm       diff\n"
      "TTFT mean (ms)                    150.000      150.000     +0.000\n"
      "TTFT p50 (ms)                     150.000      150.000     +0.000\n"
      "TTFT p90 (ms)                     190.000      190.000     +0.000\n"
      "TTFT p99 (ms)                     199.000      199.000     +0.000\n"
      "TPOT mean (ms)                     15.000       52.500    +37.500\n"
      "TPOT p50 (ms)                      15.000       52.500    +37.500\n"
      "TPOT p90 (ms)                      19.000       62.500    +43.500\n"
      "TPOT p99 (ms)                      19.900       64.750    +44.850\n"
      "ITL mean (ms)                      16.000       15.000     -1.000\n"
      "ITL p50 (ms)                       20.000       15.000     -5.000\n"
      "ITL p90 (ms)                       20.000       19.000     -1.000\n"
      "ITL p99 (ms)                       20.000       19.900     -0.100\n"
      "E2EL mean (ms)                    190.000      197.500     +7.500\n"
      "E2EL p50 (ms)                     190.000      197.500     +7.500\n"
      "E2EL p90 (ms)                     246.000      255.500     +9.500\n"
      "E2EL p99 (ms)                     258.600      268.550     +9.950\n"
      "output throughput (tok/s)          17.500       17.500     +0.000\n";
  EXPECT_EQ(text.substr(0, table.size()), table);
}

}  // namespace
}  // namespace tokenbench::metrics
