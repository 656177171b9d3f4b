// End to end: the self-checks on real runs. Coordinated omission made visible (latencies from the
// intended arrival), the achieved-rate warning against a server slow to accept, per-request
// consistency and the client's CPU.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "../client/fake_server.h"
#include "process.h"

namespace tokenbench::e2e {
namespace {

bool has_finding(const nlohmann::json& summary, const std::string& needle) {
  for (const auto& f : summary["tokenbench"]["checks"]["findings"]) {
    if (f.get<std::string>().find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(EndToEndChecks, FromIntendedLatenciesExceedTheUsualByTheWait) {
  // Each request takes about 20 + 9 x 2 ms; they are due every 10 ms with one slot: the line
  // grows, and every wait for the slot shows in the from-intended latencies only.
  SimProcess sim({"--ttft-ms", "20", "--itl-ms", "2"});
  const std::string dir = make_temp_dir("checks_intended");
  const auto r = run_process(run_args(
      sim.url(), dir,
      {"--num-prompts", "20", "--request-rate", "100", "--arrival", "constant", "--max-concurrency",
       "1", "--input-len", "16", "--output-len", "10", "--server-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int waited = 0;
  std::map<std::uint64_t, std::int64_t> intended_by_id;
  for (const auto& rec : read_records(dir + "/requests.jsonl")) {
    if (rec["phase"] != "measure") continue;
    ASSERT_TRUE(rec.contains("intended_ns")) << rec.dump();
    const auto intended = rec["intended_ns"].get<std::int64_t>();
    const auto scheduled = rec["scheduled_ns"].get<std::int64_t>();
    EXPECT_LE(intended, scheduled);
    waited += scheduled > intended;
    intended_by_id[rec["id"].get<std::uint64_t>()] = intended;
  }
  // Due every 10 ms from the first.
  ASSERT_EQ(intended_by_id.size(), 20u);
  for (const auto& [id, intended] : intended_by_id) {
    EXPECT_EQ(intended - intended_by_id[0], static_cast<std::int64_t>(id) * 10'000'000);
  }
  EXPECT_GE(waited, 15);
  const auto summary = read_json(dir + "/summary.json");
  const auto& d = summary["tokenbench"]["distributions"];
  EXPECT_EQ(d["e2el_from_intended_ms"]["count"], 20);
  // The k-th request waited about k x 28 ms: from the intended arrival the median E2EL is far
  // above the usual one.
  const double usual = d["e2el_ms"]["median"];
  const double from_intended = d["e2el_from_intended_ms"]["median"];
  EXPECT_GT(from_intended, usual + 100.0);
  EXPECT_GT(d["ttft_from_intended_ms"]["percentiles"]["p99"].get<double>(),
            d["ttft_ms"]["percentiles"]["p99"].get<double>() + 200.0);
  const auto& wait = summary["tokenbench"]["checks"]["arrival_wait"];
  EXPECT_EQ(wait["requests"], 20);
  EXPECT_GE(wait["waited"].get<int>(), 15);
  EXPECT_TRUE(has_finding(summary, "coordinated omission"));
  EXPECT_NE(r.out.find("from intended arrival: "), std::string::npos) << r.out;

  // `report` rebuilds the same from requests.jsonl.
  const auto checks = summary["tokenbench"]["checks"].dump();
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(read_json(dir + "/summary.json")["tokenbench"]["checks"].dump(), checks);
}

TEST(EndToEndChecks, ClosedLoopRunsHaveNoIntendedArrival) {
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("checks_closed");
  const auto r = run_process(run_args(sim.url(), dir,
                                      {"--num-prompts", "10", "--max-concurrency", "2",
                                       "--output-len", "5", "--server-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& rec : read_records(dir + "/requests.jsonl")) {
    EXPECT_FALSE(rec.contains("intended_ns")) << rec.dump();
  }
  const auto summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["tokenbench"]["distributions"]["e2el_from_intended_ms"]["count"], 0);
  EXPECT_TRUE(summary["tokenbench"]["checks"]["arrival_wait"].is_null());
  // Consistent streams from the simulator: nothing outside any tolerance.
  const auto& consistency = summary["tokenbench"]["checks"]["consistency"];
  EXPECT_EQ(consistency["e2el"]["checked"], 10);
  EXPECT_EQ(consistency["e2el"]["outside"], 0);
  EXPECT_EQ(consistency["tps"]["outside"], 0);
  EXPECT_EQ(consistency["usage_chunks"]["checked"], 10);
  EXPECT_EQ(consistency["usage_chunks"]["outside"], 0);
  EXPECT_EQ(consistency["usage_tokenizer"]["checked"], 0);
  // The client's CPU per worker, from its thread clock, stored and read back.
  const auto& client = summary["tokenbench"]["checks"]["client"];
  ASSERT_EQ(client["workers"].size(), 2u) << client.dump();
  for (const auto& w : client["workers"]) {
    EXPECT_GT(w["cpu_s"].get<double>(), 0);
    EXPECT_LE(w["busy_mean_pct"].get<double>(), 100.0 + 1e-6);
  }
  EXPECT_NE(r.out.find("client CPU per worker: "), std::string::npos) << r.out;
  // Every measured request says where its stamps came from: the native transport's kernel stamps.
  EXPECT_EQ(summary["tokenbench"]["checks"]["stamps"], nlohmann::json({{"kernel", 10}}))
      << summary["tokenbench"]["checks"].dump();
  EXPECT_NE(r.out.find("receive stamps: kernel 10\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("consistency: e2el 0/10 outside, tps "), std::string::npos) << r.out;
  const auto before = summary["tokenbench"]["checks"].dump();
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(read_json(dir + "/summary.json")["tokenbench"]["checks"].dump(), before);
}

// A chat stream of two tokens with usage, then the connection closes.
std::vector<testing::Piece> short_reply() {
  const std::string body =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":"
      "\"length\"}]}\n\n"
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":2}}\n\n"
      "data: [DONE]\n\n";
  return {
      {"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + body}};
}

TEST(EndToEndChecks, AServerSlowToAcceptHoldsBackTheOfferedLoad) {
  // The server takes one connection every 100 ms. With two slots the client can send only about
  // 10 requests a second of the 50 asked: the achieved-rate warning names the slots.
  testing::FakeServer server(short_reply(), false, std::chrono::milliseconds(100));
  const std::string dir = make_temp_dir("checks_slow_accept");
  const auto r = run_process(run_args(
      server.url(), dir,
      {"--num-prompts", "21", "--request-rate", "50", "--arrival", "constant", "--max-concurrency",
       "2", "--output-len", "2", "--no-preflight", "--model", "m", "--server-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["completed"], 21);
  const auto& offered = summary["tokenbench"]["checks"]["offered_load"];
  EXPECT_LT(offered["achieved_rate"].get<double>(), 0.9 * 50);
  EXPECT_TRUE(has_finding(summary, "waited for one of the 2 --max-concurrency slots"))
      << summary["tokenbench"]["checks"].dump();
  EXPECT_NE(r.out.find("req/s of the 50 requested"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tokenbench::e2e
