// End to end: every API tokenbench speaks, against serve-sim's implementation of it (its chat,
// embeddings, Anthropic Messages and Responses endpoints, reasoning and tool-call streams), with
// the counts exact and the reasoning and answer stamps distinct.

#include <gtest/gtest.h>

#include <cstdlib>

#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

std::vector<json> measured(const std::string& dir) {
  std::vector<json> out;
  for (const auto& r : read_records(dir + "/requests.jsonl")) {
    if (r["phase"] == "measure") out.push_back(r);
  }
  return out;
}

const std::vector<std::string> kQuiet{"--server-metrics", "off", "--gpu-metrics", "off"};

TEST(EndToEndApis, EmbeddingsBatchesCountInputsAndInputTokens) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "0.2"});
  const std::string dir = make_temp_dir("api-embeddings");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           with({"--api", "openai-embeddings", "--batch-size", "3", "--num-prompts",
                                 "6", "--input-len", "10", "--max-concurrency", "2"},
                                kQuiet)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = measured(dir);
  ASSERT_EQ(records.size(), 6u);
  for (const auto& rec : records) {
    EXPECT_EQ(rec["error"], "none") << rec.dump();
    EXPECT_EQ(rec["embeddings"], 3);
    EXPECT_EQ(rec["prompt_tokens"], 30);  // three inputs of 10 words, as the sim counts them
    EXPECT_EQ(rec["streamed"], false);
    EXPECT_EQ(rec["output_tokens"], 0);
  }
  const json summary = read_json(dir + "/summary.json");
  const json& e = summary["tokenbench"]["embeddings"];
  EXPECT_EQ(e["total_inputs"], 18);
  EXPECT_GT(e["input_throughput"].get<double>(), 0);
  EXPECT_NEAR(e["input_token_throughput"].get<double>(), e["input_throughput"].get<double>() * 10,
              1e-6);
  EXPECT_EQ(summary["total_input_tokens"], 180);
  EXPECT_NE(r.out.find("Input throughput (inputs/s)"), std::string::npos) << r.out;
}

TEST(EndToEndApis, VllmEmbeddingsBackendIsTheEmbeddingsApi) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.2"});
  const std::string dir = make_temp_dir("api-embeddings-vllm");
  const auto r = run_process(run_args(
      sim.url(), dir,
      with({"--backend", "openai-embeddings", "--num-prompts", "3", "--input-len", "5"}, kQuiet)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: --backend openai-embeddings (vLLM) is --endpoint /v1/embeddings"),
            std::string::npos)
      << r.err;
  const json summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["backend"], "openai-embeddings");
  EXPECT_EQ(summary["completed"], 3);
  EXPECT_EQ(summary["tokenbench"]["embeddings"]["total_inputs"], 3);
}

TEST(EndToEndApis, ChatReasoningThenContentHasTwoFirstTokenStamps) {
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "5", "--reasoning-tokens", "3"});
  const std::string dir = make_temp_dir("api-reasoning");
  const auto r = run_process(
      run_args(sim.url(), dir,
               with({"--num-prompts", "4", "--input-len", "8", "--output-len", "8",
                     "--max-concurrency", "2", "--max-tokens-field", "max_completion_tokens"},
                    kQuiet)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& rec : measured(dir)) {
    EXPECT_EQ(rec["error"], "none") << rec.dump();
    EXPECT_EQ(rec["output_tokens"], 8);
    EXPECT_EQ(rec["reasoning_tokens"], 3);
    const auto chunks = chunks_of(rec);
    ASSERT_EQ(chunks.size(), 8u);
    EXPECT_EQ(rec["first_reasoning_ns"], rec["first_token_ns"]);
    EXPECT_EQ(floor_us(rec["first_answer_ns"]), chunks[3].t);  // after three reasoning tokens
    // Three token gaps of 5 ms apart; the margin allows for a first token written late when
    // other tests load the machine (the sim keeps absolute due times, so a late first token
    // shortens this gap).
    EXPECT_GE(
        rec["first_answer_ns"].get<std::int64_t>() - rec["first_reasoning_ns"].get<std::int64_t>(),
        3 * 5'000'000 - 5'000'000);
  }
  const json summary = read_json(dir + "/summary.json");
  const json& tb = summary["tokenbench"];
  EXPECT_EQ(tb["reasoning"]["requests"], 4);
  EXPECT_EQ(tb["reasoning"]["total_reasoning_tokens"], 12);
  EXPECT_LT(tb["distributions"]["ttfr_ms"]["mean"].get<double>(),
            tb["distributions"]["ttfa_ms"]["mean"].get<double>());
  EXPECT_NE(r.out.find("Average time to first answer token"), std::string::npos) << r.out;
}

TEST(EndToEndApis, ToolCallDeltasAreOutput) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "0.5"});
  const std::string dir = make_temp_dir("api-tools");
  const auto r = run_process(run_args(
      sim.url(), dir,
      with({"--num-prompts", "3", "--input-len", "8", "--output-len", "6", "--extra-body",
            R"({"tools":[{"type":"function","function":{"name":"get_weather","parameters":{}}}]})"},
           kQuiet)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& rec : measured(dir)) {
    EXPECT_EQ(rec["error"], "none") << rec.dump();
    EXPECT_EQ(rec["finish_reason"], "length");
    EXPECT_EQ(rec["output_tokens"], 6);
    EXPECT_GE(chunks_of(rec).size(), 6u);  // the call's name, then one delta per token
  }
}

TEST(EndToEndApis, AnthropicMessagesWithThinkingAndTheKeyFromItsVariable) {
  // Anthropic's API has no ignore_eos: --eos-dist none makes every reply max_tokens long.
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "2", "--reasoning-tokens", "2", "--api-key",
                  "sk-ant-secret-123", "--eos-dist", "none"});
  const std::string dir = make_temp_dir("api-anthropic");
  ::setenv("ANTHROPIC_API_KEY", "sk-ant-secret-123", 1);
  const auto r =
      run_process(run_args(sim.url(), dir,
                           with({"--api", "anthropic-messages", "--num-prompts", "4", "--input-len",
                                 "8", "--output-len", "6", "--max-concurrency", "2", "--extra-body",
                                 R"({"thinking":{"type":"enabled","budget_tokens":1024}})"},
                                kQuiet)));
  ::unsetenv("ANTHROPIC_API_KEY");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = measured(dir);
  ASSERT_EQ(records.size(), 4u);
  for (const auto& rec : records) {
    EXPECT_EQ(rec["error"], "none") << rec.dump();
    EXPECT_EQ(rec["prompt_tokens"], 8);
    EXPECT_EQ(rec["output_tokens"], 6);
    const auto chunks = chunks_of(rec);
    ASSERT_EQ(chunks.size(), 6u);
    EXPECT_EQ(floor_us(rec["first_answer_ns"]), chunks[2].t);
    // Reasoning first; a client read late under load (a -j2 test run) gets both events in one
    // read, and the kernel stamps them alike.
    EXPECT_LE(rec["first_reasoning_ns"].get<std::int64_t>(),
              rec["first_answer_ns"].get<std::int64_t>());
  }
  for (const char* file : {"/requests.jsonl", "/summary.json", "/config.yaml"}) {
    EXPECT_EQ(slurp(dir + file).find("sk-ant-secret-123"), std::string::npos) << file;
  }
  EXPECT_EQ(r.out.find("sk-ant-secret-123"), std::string::npos);
}

TEST(EndToEndApis, ImagesReachTheMessagesAndResponsesApis) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.2", "--eos-dist", "none"});
  for (const std::string api : {"anthropic-messages", "openai-responses"}) {
    const std::string dir = make_temp_dir("api-images");
    const auto r =
        run_process(run_args(sim.url(), dir,
                             with({"--api", api, "--image-count", "1", "--image-size", "64x48",
                                   "--num-prompts", "2", "--input-len", "8", "--output-len", "3"},
                                  kQuiet)));
    ASSERT_EQ(r.exit_code, 0) << api << " " << r.err;
    for (const auto& rec : measured(dir)) {
      EXPECT_EQ(rec["error"], "none") << rec.dump();
      EXPECT_EQ(rec["prompt_tokens"], 8 + 6) << api;  // the text and a 3 x 2 patch image
    }
  }
}

TEST(EndToEndApis, ResponsesApiStreamsReasoningAndEndsAtCompleted) {
  SimProcess sim(
      {"--ttft-ms", "5", "--itl-ms", "2", "--reasoning-tokens", "2", "--eos-dist", "none"});
  const std::string dir = make_temp_dir("api-responses");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           with({"--api", "openai-responses", "--num-prompts", "4", "--input-len",
                                 "8", "--output-len", "6", "--max-concurrency", "2"},
                                kQuiet)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = measured(dir);
  ASSERT_EQ(records.size(), 4u);
  for (const auto& rec : records) {
    EXPECT_EQ(rec["error"], "none") << rec.dump();
    EXPECT_EQ(rec["prompt_tokens"], 8);
    EXPECT_EQ(rec["output_tokens"], 6);
    EXPECT_EQ(rec["reasoning_tokens"], 2);
    const auto chunks = chunks_of(rec);
    ASSERT_EQ(chunks.size(), 6u);
    EXPECT_EQ(floor_us(rec["first_answer_ns"]), chunks[2].t);
  }
}

}  // namespace
}  // namespace tokenbench::e2e
