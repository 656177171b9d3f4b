// End to end: a run scrapes serve-sim's /metrics (vLLM's names) and sets the server's account
// beside the client's figures; `report` rebuilds it from telemetry.jsonl.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "process.h"

namespace tokenbench::e2e {
namespace {

TEST(EndToEndTelemetry, ServerCountersOverTheMeasurePhaseEqualTheClients) {
  SimProcess sim({"--time-scale", "10"});
  const std::string dir = make_temp_dir("telemetry");
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--num-prompts", "60", "--max-concurrency", "8", "--warmup", "5", "--input-len",
                "64", "--output-len", "16", "--metrics-interval", "0.2"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<nlohmann::json> scrapes;  // the file also holds the phase's edges (and GPU samples)
  for (auto& line : read_jsonl(dir + "/telemetry.jsonl")) {
    if (line["type"] == "scrape") scrapes.push_back(std::move(line));
  }
  ASSERT_GE(scrapes.size(), 3u);  // before, measure_start, measure_end (and interval ones)
  int edges = 0;
  for (const auto& s : scrapes) {
    EXPECT_TRUE(s["ok"].get<bool>()) << s.dump();
    EXPECT_EQ(s["server"], "vllm");
    edges += s["label"] == "measure_start" || s["label"] == "measure_end";
  }
  EXPECT_EQ(edges, 2);

  const auto summary = read_json(dir + "/summary.json");
  const auto& server = summary["tokenbench"]["server"];
  ASSERT_TRUE(server["measured"].get<bool>()) << server.dump();
  // The warmup's requests end before the measure phase starts: the deltas are the measure
  // phase's alone, and equal the client's counts exactly.
  EXPECT_EQ(server["measure_phase"]["requests_finished"].get<double>(), 60);
  EXPECT_EQ(server["measure_phase"]["generation_tokens"].get<double>(),
            summary["total_output_tokens"].get<double>());
  EXPECT_EQ(server["measure_phase"]["prompt_tokens"].get<double>(),
            summary["total_input_tokens"].get<double>());
  EXPECT_EQ(server["latency"]["ttft"]["count"].get<double>(), 60);
  // The breakdown's parts sum to the client's mean TTFT.
  const double queue = server["latency"]["queue"]["mean_ms"];
  const double prefill = server["latency"]["prefill"]["mean_ms"];
  const double overhead = server["ttft_overhead_ms"];
  EXPECT_NEAR(queue + prefill + overhead, summary["mean_ttft_ms"].get<double>(), 1e-6);
  // The simulator's own TTFT is its queue plus prefill.
  EXPECT_NEAR(server["latency"]["ttft"]["mean_ms"].get<double>(), queue + prefill, 0.5);
  EXPECT_NE(r.out.find("Server (vllm, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the server's counters agree with the client's: 60 requests"),
            std::string::npos)
      << r.out;

  // `report` rebuilds the same account from telemetry.jsonl.
  const auto before = server.dump();
  std::filesystem::remove(dir + "/report.txt");
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(read_json(dir + "/summary.json")["tokenbench"]["server"].dump(), before);
}

TEST(EndToEndTelemetry, OffMeansNoScrapes) {
  SimProcess sim({"--time-scale", "10"});
  const std::string dir = make_temp_dir("telemetry-off");
  const auto r = run_process(run_args(sim.url(), dir,
                                      {"--num-prompts", "5", "--input-len", "16", "--output-len",
                                       "4", "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& line : read_jsonl(dir + "/telemetry.jsonl")) {
    EXPECT_NE(line["type"], "scrape") << line.dump();  // the phase's edges and the client's CPU
  }
  EXPECT_FALSE(read_json(dir + "/summary.json")["tokenbench"].contains("server"));
  EXPECT_EQ(r.out.find("Server ("), std::string::npos);
}

TEST(EndToEndTelemetry, AnExplicitEndpointThatFailsIsRecordedNotFatal) {
  SimProcess sim({"--time-scale", "10"});
  const std::string dir = make_temp_dir("telemetry-bad");
  const auto r = run_process(run_args(sim.url(), dir,
                                      {"--num-prompts", "5", "--input-len", "16", "--output-len",
                                       "4", "--server-metrics", sim.url() + "/no-metrics-here"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: --server-metrics"), std::string::npos) << r.err;
  // The replica's own /metrics is scraped as ever; the URL given besides is its own account.
  const auto tb = read_json(dir + "/summary.json")["tokenbench"];
  EXPECT_EQ(tb["server"]["role"], "replica");
  EXPECT_TRUE(tb["server"]["measured"].get<bool>());
  ASSERT_EQ(tb["servers"].size(), 2u);
  const auto& extra = tb["servers"][1];
  EXPECT_EQ(extra["role"], "extra");
  EXPECT_EQ(extra["failed_scrapes"], extra["scrapes"]);
  EXPECT_FALSE(extra["measured"].get<bool>());
}

// Two replicas and a third server given by URL: each its own account, the replicas' counters
// summed into a total that the client's counts check.
TEST(EndToEndTelemetry, EveryReplicaAndEachExtraUrlHaveTheirOwnAccountAndTheReplicasATotal) {
  SimProcess a({"--time-scale", "10"});
  SimProcess b({"--time-scale", "10"});
  SimProcess worker({"--time-scale", "10"});
  const std::string dir = make_temp_dir("telemetry-replicas");
  std::vector<std::string> args =
      run_args(a.url(), dir,
               {"--base-url", b.url(), "--num-prompts", "40", "--max-concurrency", "4",
                "--input-len", "32", "--output-len", "8", "--metrics-interval", "0.2",
                "--server-metrics", worker.url() + "/metrics,name=worker"});
  const auto r = run_process(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir + "/summary.json");
  const auto& servers = summary["tokenbench"]["servers"];
  ASSERT_EQ(servers.size(), 4u) << servers.dump();
  EXPECT_EQ(servers[0]["role"], "replica");
  EXPECT_EQ(servers[1]["role"], "replica");
  EXPECT_EQ(servers[2]["name"], "worker");
  EXPECT_EQ(servers[2]["role"], "extra");
  EXPECT_EQ(servers[2]["measure_phase"]["requests_finished"].get<double>(), 0);  // none sent to it
  const auto& total = servers[3];
  EXPECT_EQ(total["role"], "total");
  EXPECT_EQ(summary["tokenbench"]["server"], total);
  const double each = servers[0]["measure_phase"]["requests_finished"].get<double>();
  EXPECT_EQ(each, 20);  // round-robin over the two replicas
  EXPECT_EQ(each + servers[1]["measure_phase"]["requests_finished"].get<double>(),
            total["measure_phase"]["requests_finished"].get<double>());
  EXPECT_EQ(total["measure_phase"]["generation_tokens"].get<double>(),
            summary["total_output_tokens"].get<double>());
  EXPECT_EQ(total["latency"]["ttft"]["count"].get<double>(), 40);
  EXPECT_NE(r.out.find("the server's counters agree with the client's: 40 requests"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Server worker (vllm, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Server total (vllm, "), std::string::npos) << r.out;
  // Rebuilt alike from telemetry.jsonl.
  const auto before = servers.dump();
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(read_json(dir + "/summary.json")["tokenbench"]["servers"].dump(), before);
}

}  // namespace
}  // namespace tokenbench::e2e
