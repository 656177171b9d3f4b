// The run's figures fed one record at a time (report/run_figures.h, run_page.h): the same
// outputs as from the records at once, in any order, and bounded past the exact limits.

#include "tokenbench/report/run_figures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tokenbench/metrics/consistency.h"
#include "tokenbench/report/html_report.h"
#include "tokenbench/report/run_outputs.h"

namespace tokenbench::report {
namespace {

// A streamed request of `n` one-token chunks, 10 ms apart, sent at `sent_s` seconds.
core::RequestRecord streamed(std::uint64_t id, double sent_s, int n) {
  core::RequestRecord r;
  r.id = id;
  r.streamed = true;
  r.scheduled = r.sent = static_cast<core::Nanos>(sent_s * 1e9);
  r.first_token = r.sent + 50'000'000 + static_cast<core::Nanos>(id % 7) * 1'000'000;
  for (int i = 0; i < n; ++i) r.chunks.push_back({r.first_token + i * 10'000'000, 1});
  r.last_token = r.chunks.back().t;
  r.done = r.last_token + 1'000'000;
  r.output_tokens = n;
  r.prompt_tokens = 16;
  return r;
}

std::vector<core::RequestRecord> run_of(std::size_t n) {
  std::vector<core::RequestRecord> records;
  for (std::size_t i = 0; i < n; ++i) {
    records.push_back(streamed(i, 0.01 * static_cast<double>(i), 4 + static_cast<int>(i % 5)));
  }
  records[3].error = core::ErrorClass::kHttp5xx;
  records[3].http_status = 503;
  return records;
}

TEST(RunFigures, AnyOrderGivesTheSameOutputs) {
  core::RunConfig config;
  config.buckets = {"output:0,6"};
  config.output_dir = ::testing::TempDir() + "run-figures-order";
  auto records = run_of(500);
  RunFigures in_order(config);
  for (const auto& r : records) in_order.add(r);
  std::mt19937 rng(7);
  std::shuffle(records.begin(), records.end(), rng);
  RunFigures shuffled(config);
  for (const auto& r : records) shuffled.add(r);
  EXPECT_EQ(in_order.records(), 500);
  const metrics::Summary a = in_order.summary().finish();
  const metrics::Summary b = shuffled.summary().finish();
  EXPECT_EQ(a.completed, 499);
  EXPECT_EQ(a.completed, b.completed);
  EXPECT_EQ(a.ttft_ms.at(99), b.ttft_ms.at(99));
  EXPECT_EQ(a.itl_ms.at(50), b.itl_ms.at(50));
  EXPECT_EQ(a.max_concurrency_observed, b.max_concurrency_observed);
  const auto page_a = html_report_data(in_order.page(), in_order.summary(), {}, "", "", {});
  const auto page_b = html_report_data(shuffled.page(), shuffled.summary(), {}, "", "", {});
  EXPECT_EQ(page_a["series"], page_b["series"]);
  EXPECT_EQ(page_a["timeline"], page_b["timeline"]);
  EXPECT_EQ(page_a["errors"], page_b["errors"]);
  EXPECT_EQ(page_a["distributions"], page_b["distributions"]);
  // Requests 0 to 89 end within the first second (about 90 ms after their send); one failed.
  EXPECT_EQ(page_a["series"]["completed"][0], 89);
  ASSERT_EQ(in_order.buckets().size(), 1u);
  EXPECT_EQ(in_order.buckets()[0].finish()[0].summary.completed, 200);  // 4 and 5 tokens
}

// Past the exact limit report.html's distributions stand for the sketch: the same count, the
// histogram's counts adding up to it, and the sketch's error said.
TEST(RunFigures, PageDistributionsComeFromTheSketchPastTheLimit) {
  metrics::SummaryBuilder figures(metrics::SummaryOptions{}, 100, 100);
  RunPageBuilder page;
  for (const auto& r : run_of(2000)) {
    figures.add(r);
    page.add(r);
  }
  const auto data = html_report_data(page, figures, {}, "", "", {});
  const auto& ttft = data["distributions"]["TTFT"];
  EXPECT_EQ(ttft["n"], 1999);
  EXPECT_GT(ttft["relative_error"].get<double>(), 0);
  double counted = 0;
  for (const auto& c : ttft["counts"]) counted += c.get<double>();
  EXPECT_NEAR(counted, 1999, 1e-6);
  // TTFTs are 50 to 56 ms: the CDF's ends are there within the sketch's error.
  EXPECT_NEAR(ttft["cdf_x"].front().get<double>(), 50, 0.1);
  EXPECT_NEAR(ttft["cdf_x"].back().get<double>(), 56, 0.1);
  // Gaps: 3 to 7 per request (4 to 8 chunks), 10,000 in all, less the failed request's 6.
  EXPECT_EQ(data["distributions"]["ITL"]["n"], 9994);
}

// The timeline of a run far longer than it shows keeps about twice the rows shown, sampled
// evenly by arrival, in order of schedule.
TEST(RunFigures, TimelineStaysBoundedAndOrdered) {
  RunPageBuilder page;
  const std::size_t n = 5 * kMaxTimelineRequests + 3;
  for (std::size_t i = 0; i < n; ++i) {
    core::RequestRecord r;
    r.id = i;
    r.scheduled = r.sent = static_cast<core::Nanos>(i) * 1'000'000;
    r.done = r.sent + 5'000'000;
    page.add(r);
  }
  const auto timeline = page.timeline();
  EXPECT_EQ(timeline["total"], n);
  ASSERT_EQ(timeline["index"].size(), kMaxTimelineRequests);
  const auto& scheduled = timeline["scheduled"];
  for (std::size_t k = 1; k < scheduled.size(); ++k) {
    ASSERT_LE(scheduled[k - 1].get<double>(), scheduled[k].get<double>());
  }
  EXPECT_EQ(timeline["index"].front(), 0);
  EXPECT_GE(timeline["index"].back().get<std::size_t>(), n - 8);
  // The last sampled row is near the run's end (the sample covers all of it).
  EXPECT_GT(scheduled.back().get<double>(), 0.99 * static_cast<double>(n) / 1000);
}

TEST(RunFigures, ConsistencyKeepsTheSmallestIdsInAnyOrder) {
  metrics::ConsistencyChecker checker;
  for (std::uint64_t id = 100; id-- > 0;) {
    core::RequestRecord r = streamed(id, 0, 4);
    r.output_source = core::TokenSource::kUsage;
    r.output_tokens = 2;  // 4 chunks, 2 tokens by usage: outside usage_chunks
    checker.add(r);
  }
  const auto checks = checker.finish();
  ASSERT_EQ(checks.size(), 4u);
  EXPECT_EQ(checks[2].name, "usage_chunks");
  EXPECT_EQ(checks[2].outside, 100);
  EXPECT_EQ(checks[2].first_ids, (std::vector<std::uint64_t>{0, 1, 2, 3, 4}));
}

}  // namespace
}  // namespace tokenbench::report
