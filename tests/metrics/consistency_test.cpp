// Per-request consistency checks: each flags exactly the requests that break its rule.

#include "tokenbench/metrics/consistency.h"

#include <gtest/gtest.h>

namespace tokenbench::metrics {
namespace {

constexpr core::Nanos kMs = 1'000'000;

// A streamed request sent at 0: first token at 100 ms, then one token per chunk every 10 ms;
// `n` tokens by usage; the transfer ends 1 ms after the last token.
core::RequestRecord request(std::uint64_t id, int n) {
  core::RequestRecord r;
  r.id = id;
  r.scheduled = r.sent = 0;
  for (int i = 0; i < n; ++i) r.chunks.push_back({100 * kMs + i * 10 * kMs, 1});
  r.first_token = r.chunks.front().t;
  r.last_token = r.chunks.back().t;
  r.done = r.last_token + kMs;
  r.output_tokens = n;
  r.output_source = core::TokenSource::kUsage;
  return r;
}

const ConsistencyCheck& find(const std::vector<ConsistencyCheck>& checks, const std::string& n) {
  for (const auto& c : checks) {
    if (c.name == n) return c;
  }
  throw std::runtime_error("no check " + n);
}

TEST(Consistency, ConsistentRequestsPassEveryCheck) {
  std::vector<core::RequestRecord> records;
  for (std::uint64_t i = 0; i < 10; ++i) records.push_back(request(i, 11));
  records[3].tokenizer_output_tokens = 12;  // within 2 tokens
  const auto checks = check_consistency(records);
  ASSERT_EQ(checks.size(), 4u);
  for (const auto& c : checks) EXPECT_EQ(c.outside, 0) << c.name;
  EXPECT_EQ(find(checks, "e2el").checked, 10);
  EXPECT_EQ(find(checks, "tps").checked, 10);
  EXPECT_EQ(find(checks, "usage_chunks").checked, 10);
  EXPECT_EQ(find(checks, "usage_tokenizer").checked, 1);
}

TEST(Consistency, EachCheckFlagsItsOwnBreach) {
  std::vector<core::RequestRecord> records;
  for (std::uint64_t i = 0; i < 10; ++i) records.push_back(request(i, 11));
  // E2EL 200 ms by TTFT + TPOT x 10; the transfer ended 30 ms later (beyond 5 ms and 5%).
  records[2].done = records[2].last_token + 30 * kMs;
  // The first chunk carried 3 tokens: 13 by the chunks against 11 by usage.
  records[4].chunks[0].tokens = 3;
  records[4].output_tokens = 13;
  // Usage says 8 tokens for 11 chunks.
  records[6].output_tokens = 8;
  // The local tokenizer counts 20 where usage says 11.
  records[7].tokenizer_output_tokens = 20;
  // Failed, warmup and replaced attempts are not examined.
  records[8].error = core::ErrorClass::kStreamCut;
  records[9].phase = core::Phase::kWarmup;
  const auto checks = check_consistency(records);
  const auto& e2el = find(checks, "e2el");
  EXPECT_EQ(e2el.checked, 8);
  EXPECT_EQ(e2el.outside, 1);
  EXPECT_EQ(e2el.first_ids, std::vector<std::uint64_t>{2});
  const auto& tps = find(checks, "tps");
  // Request 4: 10 tokens after the first chunk over 90 ms (111/s) against 1000 / TPOT = 12
  // tokens over 90 ms (133/s); request 6: 10 tokens against 7.
  EXPECT_EQ(tps.outside, 2);
  EXPECT_EQ(tps.first_ids, (std::vector<std::uint64_t>{4, 6}));
  EXPECT_EQ(find(checks, "usage_chunks").first_ids, std::vector<std::uint64_t>{6});
  const auto& tok = find(checks, "usage_tokenizer");
  EXPECT_EQ(tok.checked, 1);
  EXPECT_EQ(tok.first_ids, std::vector<std::uint64_t>{7});
}

TEST(Consistency, ListsTheFirstFiveIdsInOrder) {
  std::vector<core::RequestRecord> records;
  for (std::uint64_t i = 20; i-- > 0;) {
    records.push_back(request(i, 5));
    records.back().done += 100 * kMs;
  }
  const auto checks = check_consistency(records);
  const auto& e2el = find(checks, "e2el");
  EXPECT_EQ(e2el.outside, 20);
  EXPECT_EQ(e2el.first_ids, (std::vector<std::uint64_t>{0, 1, 2, 3, 4}));
}

}  // namespace
}  // namespace tokenbench::metrics
