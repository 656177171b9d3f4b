// The server's account of a run from synthetic scrapes: deltas, gauges, the cross-check.

#include "tokenbench/telemetry/server_account.h"

#include <gtest/gtest.h>

namespace tokenbench::telemetry {
namespace {

Scrape scrape(core::Nanos t, const char* label, double running, double generated, double finished) {
  Scrape s;
  s.t = t;
  s.label = label;
  s.ok = true;
  s.snapshot.kind = ServerKind::kVllm;
  s.snapshot.running = running;
  s.snapshot.generation_tokens = generated;
  s.snapshot.requests_finished = finished;
  return s;
}

TEST(ServerAccount, DeltasGaugesAndAMismatchFound) {
  std::vector<Scrape> scrapes{
      scrape(0, "before", 0, 100, 10), scrape(10, "measure_start", 2, 150, 12),
      scrape(20, "interval", 8, 400, 20), scrape(30, "measure_end", 4, 950, 32)};
  Scrape failed;
  failed.t = 25;
  failed.label = "interval";
  failed.error = "HTTP 503";
  scrapes.insert(scrapes.begin() + 3, failed);
  metrics::Summary client;
  client.measured = 20;
  client.completed = 20;
  client.total_output_tokens = 700;  // the server says 800
  const ServerAccount a = account_for(scrapes, "http://x/metrics", client);
  EXPECT_TRUE(a.measured);
  EXPECT_EQ(a.scrapes, 5);
  EXPECT_EQ(a.failed_scrapes, 1);
  EXPECT_EQ(a.first_error, "HTTP 503");
  EXPECT_EQ(a.generation_tokens, 800);
  EXPECT_EQ(a.requests_finished, 20);
  ASSERT_TRUE(a.running);
  EXPECT_EQ(a.running->samples, 3);  // the measure phase's scrapes only
  EXPECT_DOUBLE_EQ(a.running->mean, 14.0 / 3);
  EXPECT_EQ(a.running->max, 8);
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0],
            "the server counted 800 generation tokens over the measure phase, the client 700 "
            "(over successful requests)");
}

TEST(ServerAccount, UnderSimTimeTheServersLatenciesAreOnTheClientsClock) {
  // 4 requests of 10 ms TTFT each in the measure phase, on the simulator's real clock; the
  // client reports model time, 10x.
  std::vector<Scrape> scrapes{scrape(10, "measure_start", 0, 0, 0),
                              scrape(20, "measure_end", 0, 40, 4)};
  scrapes[1].snapshot.ttft = Histogram{{{0.005, 0}, {0.02, 4}}, 0.04, 4};
  metrics::Summary client;
  client.completed = 4;
  client.total_output_tokens = 40;
  const ServerAccount real = account_for(scrapes, "u", client);
  ASSERT_TRUE(real.ttft);
  EXPECT_DOUBLE_EQ(real.ttft->mean_ms, 10);
  const ServerAccount model = account_for(scrapes, "u", client, 10);
  ASSERT_TRUE(model.ttft);
  EXPECT_DOUBLE_EQ(model.ttft->mean_ms, 100);
  const std::string text = render_account(model, client);
  EXPECT_NE(text.find("server (ms)*"), std::string::npos) << text;
  EXPECT_NE(text.find("model time: the server's times x10"), std::string::npos) << text;
  EXPECT_EQ(account_to_json(model)["time_scale"], 10);
}

TEST(ServerAccount, WithoutBothEdgesThereAreNoFigures) {
  const ServerAccount a = account_for({scrape(0, "before", 1, 1, 1)}, "u", metrics::Summary{});
  EXPECT_FALSE(a.measured);
  EXPECT_FALSE(a.generation_tokens);
  EXPECT_NE(render_account(a, metrics::Summary{}).find("no server figures"), std::string::npos);
}

TEST(ServerAccount, TelemetryLinesRoundTrip) {
  Scrape s = scrape(42, "measure_end", 3, 10, 2);
  s.snapshot.ttft = Histogram{{{0.1, 1}, {INFINITY, 2}}, 0.3, 2};
  const Scrape back = scrape_from_json(scrape_to_json(s));
  EXPECT_EQ(back.t, 42);
  EXPECT_EQ(back.label, "measure_end");
  EXPECT_EQ(back.snapshot.kind, ServerKind::kVllm);
  EXPECT_EQ(back.snapshot.running, 3);
  ASSERT_TRUE(back.snapshot.ttft);
  EXPECT_EQ(back.snapshot.ttft->buckets, s.snapshot.ttft->buckets);
  EXPECT_THROW(scrape_from_json(nlohmann::json{{"label", "x"}}), std::runtime_error);
}

}  // namespace
}  // namespace tokenbench::telemetry
