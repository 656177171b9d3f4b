// End to end against serve-sim: speculative decoding seen from both sides (the server's
// counters and the client's tokens per chunk), a LoRA adapter mix with figures per adapter, and
// rerank requests (issue 30).

#include <gtest/gtest.h>

#include <cmath>

#include "process.h"

namespace tokenbench::e2e {
namespace {

// K = 3 drafts a step accepted with P = 0.7 each: (1 - P^4) / (1 - P) = 2.533 tokens a step.
TEST(EndToEndEngineFeatures, SpecDecodeAcceptanceFromMetricsAndTokensPerChunkFromTheStream) {
  SimProcess sim({"--time-scale", "10", "--spec-decode", "k=3,accept=0.7", "--seed", "5"});
  const std::string dir = make_temp_dir("spec-decode");
  const auto r = run_process(run_args(
      sim.url(), dir,
      {"--num-prompts", "40", "--max-concurrency", "8", "--input-len", "32", "--output-len", "64",
       "--ignore-eos", "--continuous-usage", "--metrics-interval", "0.2"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir + "/summary.json");
  const auto& tb = summary["tokenbench"];
  // The server's side: vLLM's counters, read as vLLM's bench serve reads them.
  const auto& spec = tb["server"]["speculative_decoding"];
  ASSERT_TRUE(spec.is_object()) << tb["server"].dump();
  const double length = spec["acceptance_length"];
  EXPECT_NEAR(length, 2.533, 0.15) << spec.dump();
  EXPECT_NEAR(spec["acceptance_rate"].get<double>(), (length - 1) / 3, 1e-9);
  ASSERT_EQ(spec["acceptance_per_position"].size(), 3u);
  EXPECT_NEAR(spec["acceptance_per_position"][0].get<double>(), 0.7, 0.06);
  EXPECT_NEAR(spec["acceptance_per_position"][2].get<double>(), 0.343, 0.06);
  // The client's side: the server's usage in every chunk counts each chunk's tokens exactly.
  EXPECT_EQ(tb["chunk_usage_requests"], 40);
  const auto& per_chunk = tb["distributions"]["tokens_per_chunk"];
  // A step gives at most K + 1 = 4 tokens, but tokens that queue up behind a busy client or
  // engine leave together too, so only the bulk is bounded.
  EXPECT_GT(per_chunk["mean"].get<double>(), 1.8) << per_chunk.dump();
  EXPECT_LE(per_chunk["median"].get<double>(), 4) << per_chunk.dump();
  // ITL per token is ITL per chunk spread over the chunk's tokens: shorter.
  EXPECT_LT(tb["distributions"]["itl_per_token_ms"]["mean"].get<double>(),
            tb["distributions"]["itl_ms"]["mean"].get<double>());
  EXPECT_NE(r.out.find("speculative decoding: acceptance rate"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Tokens per chunk: mean"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("counted by the server's usage in each chunk in 40 of 40 requests"),
            std::string::npos)
      << r.out;
  // Every record's chunks sum to its output tokens.
  for (const auto& rec : read_records(dir + "/requests.jsonl")) {
    std::int64_t sum = 0;
    for (const auto& c : chunks_of(rec)) sum += c.tokens;
    EXPECT_EQ(sum, rec["output_tokens"].get<std::int64_t>());
  }
}

// Three adapters served, two resident at once: the mix's figures per adapter, weighted.
TEST(EndToEndEngineFeatures, ALoraMixGivesEachAdapterItsShareAndItsFigures) {
  SimProcess sim(
      {"--time-scale", "10", "--lora-adapters", "3", "--max-loras", "2", "--lora-load-ms", "20"});
  const std::string dir = make_temp_dir("lora-mix");
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--num-prompts", "100", "--max-concurrency", "8", "--input-len", "32",
                "--output-len", "8", "--lora-modules", "lora-0,lora-1,lora-2", "--lora-weights",
                "lora-0=0.5,lora-1=0.3,lora-2=0.2", "--metrics-interval", "0.1"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir + "/summary.json");
  const auto& mix = summary["tokenbench"]["mix"];
  ASSERT_EQ(mix["kind"], "lora");
  ASSERT_EQ(mix["members"].size(), 3u);
  int completed = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& m = mix["members"][i];
    EXPECT_EQ(m["name"], "lora-" + std::to_string(i));
    EXPECT_NEAR(m["measured_share"].get<double>(), m["share"].get<double>(), 0.05) << m.dump();
    EXPECT_GT(m["median_ttft_ms"].get<double>(), 0);
    completed += m["completed"].get<int>();
  }
  EXPECT_EQ(completed, 100);
  EXPECT_DOUBLE_EQ(mix["members"][0]["share"].get<double>(), 0.5);
  // Each request named its adapter, and the records say which.
  for (const auto& rec : read_records(dir + "/requests.jsonl")) EXPECT_TRUE(rec.contains("mix"));
  // The server's view: at most two adapters ran at once, all three over the run.
  const auto& lora = summary["tokenbench"]["server"]["lora"];
  ASSERT_TRUE(lora.is_object()) << summary["tokenbench"]["server"].dump();
  EXPECT_LE(lora["max_running_adapters"].get<int>(), 2);
  EXPECT_EQ(lora["max_lora"].get<double>(), 2);
  EXPECT_NE(r.out.find("By LoRA adapter (--lora-modules):"), std::string::npos) << r.out;
  // `report` rebuilds the same figures per adapter from requests.jsonl.
  const auto before = mix.dump();
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(read_json(dir + "/summary.json")["tokenbench"]["mix"].dump(), before);
}

// Base models behind one gateway as a mix (--model a,b would compare them instead).
TEST(EndToEndEngineFeatures, AModelMixSpreadsRequestsOverTheModelsAsWeighed) {
  SimProcess sim({"--time-scale", "10", "--lora-adapters", "1"});
  const std::string dir = make_temp_dir("model-mix");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           {"--num-prompts", "40", "--max-concurrency", "4", "--input-len", "16",
                            "--output-len", "4", "--model-mix", "sim-model=3,lora-0=1"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["completed"], 40);
  const auto& mix = summary["tokenbench"]["mix"];
  EXPECT_EQ(mix["kind"], "model");
  // The golden-ratio walk keeps every stretch within a request or so of the 3 to 1 shares.
  EXPECT_NEAR(mix["members"][0]["completed"].get<double>(), 30, 1.5);
  EXPECT_NEAR(mix["members"][1]["completed"].get<double>(), 10, 1.5);
  EXPECT_NE(r.out.find("By model (--model-mix):"), std::string::npos) << r.out;
}

TEST(EndToEndEngineFeatures, RerankCountsDocumentsAndTheirTokens) {
  SimProcess sim({"--time-scale", "10"});
  const std::string dir = make_temp_dir("rerank");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           {"--api", "rerank", "--num-prompts", "20", "--documents", "5",
                            "--input-len", "40", "--query-len", "8", "--max-concurrency", "4"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["completed"], 20);
  const auto& rerank = summary["tokenbench"]["rerank"];
  EXPECT_EQ(rerank["total_documents"], 100);
  EXPECT_EQ(rerank["documents_per_request"], 5);
  EXPECT_GT(rerank["document_throughput"].get<double>(), 0);
  // The server's usage counts each (query, document) pair: about 5 x (8 + 40) tokens a request.
  const double input = summary["total_input_tokens"];
  EXPECT_NEAR(input / 20, 5 * (8 + 40), 5 * (8 + 40) * 0.2) << input;
  EXPECT_NE(r.out.find("Document throughput (docs/s)"), std::string::npos) << r.out;
  // A score request of the same workload.
  const std::string score_dir = make_temp_dir("score");
  const auto s = run_process(run_args(
      sim.url(), score_dir,
      {"--endpoint", "/v1/score", "--num-prompts", "6", "--documents", "3", "--input-len", "16"}));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(read_json(score_dir + "/summary.json")["tokenbench"]["rerank"]["total_documents"], 18);
}

// A disaggregated pair without a router: the decode worker asks the prefill worker for each
// prompt, then waits for the KV transfer. The run scrapes both, each its own account.
TEST(EndToEndEngineFeatures, APrefillAndDecodePairAreTwoScrapeTargetsAndTtftHoldsTheTransfer) {
  SimProcess prefill({"--role", "prefill"});
  SimProcess decode({"--role", "decode", "--prefill-url", prefill.url(), "--kv-transfer-ms", "40"});
  const std::string dir = make_temp_dir("disaggregated");
  const auto r = run_process(run_args(
      decode.url(), dir,
      {"--num-prompts", "12", "--max-concurrency", "4", "--input-len", "64", "--output-len", "8",
       "--ignore-eos", "--server-metrics", prefill.url() + "/metrics,name=prefill"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["completed"], 12);
  EXPECT_GE(summary["tokenbench"]["distributions"]["ttft_ms"]["min"].get<double>(), 40);
  const auto& servers = summary["tokenbench"]["servers"];
  ASSERT_EQ(servers.size(), 2u) << summary["tokenbench"].dump();
  const auto& d = servers[0];
  const auto& p = servers[1];
  EXPECT_EQ(d["role"], "replica");
  EXPECT_EQ(p["name"], "prefill");
  // The prefill worker computed every prompt and one token each; the decode worker generated
  // every token the client counted and computed no prompt.
  EXPECT_EQ(p["measure_phase"]["prompt_tokens"].get<double>(),
            summary["total_input_tokens"].get<double>());
  EXPECT_EQ(p["measure_phase"]["generation_tokens"].get<double>(), 12);
  EXPECT_EQ(d["measure_phase"]["prompt_tokens"].get<double>(), 0);
  EXPECT_EQ(d["measure_phase"]["generation_tokens"].get<double>(),
            summary["total_output_tokens"].get<double>());
  EXPECT_NE(r.out.find("Server prefill (vllm, "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tokenbench::e2e
