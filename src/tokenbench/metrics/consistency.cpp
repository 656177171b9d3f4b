#include "tokenbench/metrics/consistency.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "tokenbench/metrics/request_metrics.h"

namespace tokenbench::metrics {
namespace {

ConsistencyCheck named(const char* name, const char* rule, const char* reading) {
  ConsistencyCheck check;
  check.name = name;
  check.rule = rule;
  check.reading = reading;
  return check;
}

// Counts one check's outcome, keeping the smallest kConsistencyIdsShown ids outside it
// (ascending): bounded, whatever the run's length.
void tally(ConsistencyCheck& check, std::uint64_t id, bool outside) {
  ++check.checked;
  if (!outside) return;
  ++check.outside;
  auto& ids = check.first_ids;
  if (ids.size() == kConsistencyIdsShown && id >= ids.back()) return;
  ids.insert(std::upper_bound(ids.begin(), ids.end(), id), id);
  if (ids.size() > kConsistencyIdsShown) ids.pop_back();
}

bool beyond(double measured, double expected, double absolute) {
  return std::abs(measured - expected) >
         std::max(absolute, kRelativeTolerance * std::abs(expected));
}

}  // namespace

ConsistencyChecker::ConsistencyChecker()
    : e2el_(named("e2el",
                  "E2EL to the transfer's end against TTFT + TPOT x (N-1), within 5 ms or 5%",
                  "the reply went on after its last token (a slow usage chunk or [DONE], a proxy "
                  "holding the stream): a client timing the whole transfer reads a longer E2EL")),
      tps_(named("tps", "decode rate from the chunks' tokens against 1000 / TPOT, within 5%",
                 "the first chunk carried several tokens, or the chunks' tokens do not add up to "
                 "the output count: TPOT and per-chunk rates disagree")),
      chunks_(named("usage_chunks", "content chunks at most the usage's completion tokens",
                    "more content chunks than the server says it generated: its usage "
                    "undercounts, so token figures from usage are low")),
      tokenizer_(named("usage_tokenizer",
                       "usage's completion tokens against the local tokenizer's count, within 2 "
                       "tokens or 5%",
                       "--tokenizer is not the model's tokenizer (or the server counts tokens it "
                       "did not send): counts from it will be off")) {}

void ConsistencyChecker::add(const core::RequestRecord& r) {
  if (r.phase != core::Phase::kMeasure || r.retried || !r.ok()) return;
  const auto ttft = ttft_ms(r);
  const auto tpot = tpot_ms(r);
  if (ttft && tpot && r.done != core::kNever && r.sent != core::kNever) {
    const double expected = *ttft + *tpot * static_cast<double>(r.output_tokens - 1);
    tally(e2el_, r.id, beyond(core::to_ms(r.done - r.sent), expected, kE2elToleranceMs));
  }
  if (tpot && *tpot > 0 && r.chunks.size() >= 2 && r.last_token > r.first_token) {
    std::int64_t after_first = 0;
    for (std::size_t i = 1; i < r.chunks.size(); ++i) after_first += r.chunks[i].tokens;
    const double chunk_rate =
        static_cast<double>(after_first) / core::to_seconds(r.last_token - r.first_token);
    tally(tps_, r.id, beyond(chunk_rate, 1000.0 / *tpot, 0));
  }
  if (r.output_source == core::TokenSource::kUsage) {
    if (r.streamed) {
      tally(chunks_, r.id, static_cast<std::int64_t>(r.chunks.size()) > r.output_tokens);
    }
    if (r.tokenizer_output_tokens >= 0) {
      tally(tokenizer_, r.id,
            beyond(static_cast<double>(r.tokenizer_output_tokens),
                   static_cast<double>(r.output_tokens), static_cast<double>(kTokenTolerance)));
    }
  }
}

std::vector<ConsistencyCheck> ConsistencyChecker::finish() const {
  return {e2el_, tps_, chunks_, tokenizer_};
}

std::vector<ConsistencyCheck> check_consistency(const std::vector<core::RequestRecord>& records) {
  ConsistencyChecker checker;
  for (const auto& r : records) checker.add(r);
  return checker.finish();
}

}  // namespace tokenbench::metrics
