// End to end: more of the peers' documented command lines (docs/CLI.md, "A peer's whole command
// line"), each copied from the peer's README or docs at a named commit. Each runs against a
// serve-sim whose --request-log says what the server was asked (API, lengths, ignore_eos, count),
// or is refused in one line with its reason. Counts and durations are cut for the test's time
// where said.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "process.h"

namespace tokenbench::e2e {
namespace {

ProcessResult tokenbench(std::vector<std::string> args,
                         const std::map<std::string, std::string>& env = {}) {
  args.insert(args.begin(), TOKENBENCH_BINARY);
  args.insert(args.end(), {"--gpu-metrics", "off"});
  return run_process(args, std::chrono::seconds(90), env);
}

void expect_refused(const ProcessResult& r, const std::string& why) {
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // one line
}

// vllm-project/guidellm v0.3.1 (121dcdc4) docs/datasets.md: throughput with synthetic data as a
// string, 1000 requests cut to 20. GuideLLM sends text completions, streamed, with
// max_tokens and ignore_eos for the data's output length.
TEST(PeerCorpus, GuidellmThroughputWithSyntheticData) {
  LoggedSim server("corpus_guidellm_throughput");
  const std::string dir = make_temp_dir("corpus_guidellm_throughput_run");
  const auto r = tokenbench({"benchmark", "--target", server.url(), "--rate-type", "throughput",
                             "--max-requests", "20", "--data",
                             "prompt_tokens=256,output_tokens=128", "--output-path", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no --request-type (GuideLLM) is --api openai"), std::string::npos) << r.err;
  const auto saw = server.saw();
  ASSERT_EQ(saw.size(), 20u);
  for (const auto& q : saw) {
    EXPECT_EQ(q["api"], "completions");
    EXPECT_TRUE(q["stream"].get<bool>());
    EXPECT_EQ(q["prompt_tokens"], 256);
    EXPECT_EQ(q["max_tokens"], 128);
    EXPECT_TRUE(q["ignore_eos"].get<bool>());
  }
}

// docs/outputs.md: the README's sweep with --output-extras, its 10 levels of 30 s cut to 2 of
// 0.5 s (--rate 2: one request at a time, then every request at once).
TEST(PeerCorpus, GuidellmSweepWithOutputExtras) {
  LoggedSim server("corpus_guidellm_extras");
  const std::string dir = make_temp_dir("corpus_guidellm_extras_run");
  const auto r = tokenbench(
      {"benchmark", "--target", server.url(), "--rate-type", "sweep", "--rate", "2",
       "--max-seconds", "0.5", "--data", "prompt_tokens=256,output_tokens=128", "--output-extras",
       R"({"tag": "my_tag", "metadata": {"key": "value"}})", "--output-path", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--output-extras"), std::string::npos);
  EXPECT_NE(r.err.find("is ignored: tokenbench keeps every request"), std::string::npos) << r.err;
  const auto levels = read_json(dir + "/sweep.json")["levels"];
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(levels[0]["dir"], "c1-rinf");
  EXPECT_FALSE(server.saw().empty());
}

// docs/datasets.md: a Hugging Face dataset with --data-args is refused with what to give.
TEST(PeerCorpus, GuidellmHuggingFaceDatasetIsRefused) {
  expect_refused(
      tokenbench({"benchmark", "--target", "http://127.0.0.1:1", "--rate-type", "throughput",
                  "--max-requests", "1000", "--data", "path/to/dataset|dataset_id", "--data-args",
                  R"({"prompt_column": "prompt", "split": "train"})", "--processor",
                  "path/to/processor"}),
      "a dataset by name is not fetched here");
}

// ray-project/llmperf (f1d6bed4) README.md: its other APIs, each with the README's flags, are
// refused: tokenbench measures an OpenAI-compatible server.
TEST(PeerCorpus, LlmperfOtherApisAreRefused) {
  const std::vector<std::string> common = {"--mean-input-tokens",
                                           "550",
                                           "--stddev-input-tokens",
                                           "150",
                                           "--mean-output-tokens",
                                           "150",
                                           "--stddev-output-tokens",
                                           "10",
                                           "--max-num-completed-requests",
                                           "2",
                                           "--timeout",
                                           "600",
                                           "--num-concurrent-requests",
                                           "1",
                                           "--results-dir",
                                           "result_outputs",
                                           "--additional-sampling-params",
                                           "{}"};
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"claude-2", "anthropic"},
      {"together_ai/togethercomputer/CodeLlama-7b-Instruct", "litellm"},
      {"huggingface/meta-llama/Llama-2-7b-chat-hf", "litellm"},
      {"meta-llama/Llama-2-7b-chat-hf", "vertexai"},
      {"llama-2-7b", "sagemaker"},
  };
  for (const auto& [model, api] : cases) {
    std::vector<std::string> args = {"run", "--model", model};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), {"--llm-api", api});
    expect_refused(tokenbench(args, {{"OPENAI_API_BASE", "http://127.0.0.1:1/v1"}}),
                   "--llm-api " + api + " (LLMPerf) is refused");
  }
}

// kubernetes-sigs/inference-perf (7de5ef2e) example configs as run --config, each verbatim but
// for the server's URL (serve-sim's in place of http://0.0.0.0:8000), the stages' 30 s (2 s here)
// and the tokenizer section (a Hugging Face download). Returns the config's path.
std::string inference_perf_config(const std::string& name, std::string yaml,
                                  const std::string& url) {
  const auto replace = [&yaml](const std::string& from, const std::string& to) {
    for (auto at = yaml.find(from); at != std::string::npos; at = yaml.find(from, at + to.size())) {
      yaml.replace(at, from.size(), to);
    }
  };
  replace("http://0.0.0.0:8000", url);
  replace("duration: 30", "duration: 2");
  const std::string path = make_temp_dir(name) + "/config.yml";
  std::ofstream(path) << yaml;
  return path;
}

const char* const kMetricsAndReport =
    "metrics:\n  type: prometheus\n  prometheus:\n    url: http://localhost:9090\n"
    "    scrape_interval: 15\nreport:\n  request_lifecycle:\n    summary: true\n"
    "    per_stage: true\n    per_request: true\n";

// examples/sglang/config-shared-prefix.yml: two stages of constant rates with an interval, a
// shared-prefix dataset in its newer key names, ignore_eos, not streamed (api.streaming's
// default).
TEST(PeerCorpus, InferencePerfSharedPrefix) {
  LoggedSim server("corpus_ip_shared_prefix");
  const std::string config = inference_perf_config(
      "corpus_ip_shared_prefix_config",
      std::string("load:\n  type: constant\n  interval: 15\n  stages:\n  - rate: 1\n"
                  "    duration: 30\n  - rate: 2\n    duration: 30\napi:\n  type: completion\n"
                  "server:\n  type: sglang\n  model_name: HuggingFaceTB/SmolLM2-135M-Instruct\n"
                  "  base_url: http://0.0.0.0:8000\n  ignore_eos: true\ndata:\n"
                  "  type: shared_prefix\n  shared_prefix:\n    num_unique_system_prompts: 10\n"
                  "    num_users_per_system_prompt: 10\n    system_prompt_len: 100\n"
                  "    question_len: 50\n    output_len: 50\n") +
          kMetricsAndReport,
      server.url());
  const std::string dir = make_temp_dir("corpus_ip_shared_prefix_run");
  const auto r =
      tokenbench({"run", "--config", config, "--model", "sim-model", "--output-dir", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("load.interval 15"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is --prefix-groups 10"), std::string::npos) << r.err;
  const auto saw = server.saw();
  ASSERT_GE(saw.size(), 4u);  // 2 s at 1/s, then at 2/s
  for (const auto& q : saw) {
    EXPECT_EQ(q["api"], "completions");
    EXPECT_FALSE(q["stream"].get<bool>());
    EXPECT_TRUE(q["ignore_eos"].get<bool>());
    EXPECT_EQ(q["max_tokens"], 50);
    EXPECT_GE(q["prompt_tokens"].get<int>(), 150);  // the group's 100 and the question's 50
    EXPECT_LE(q["prompt_tokens"].get<int>(), 158);
  }
  const auto levels = read_json(dir + "/sweep.json")["levels"];
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(levels[0]["tokenbench"]["config"]["dataset"], "shared-prefix");
}

// examples/sglang/config-synthetic.yml: synthetic lengths as normals (mean 50, std_dev 10), the
// server's ignore_eos left at inference-perf's false.
TEST(PeerCorpus, InferencePerfSynthetic) {
  LoggedSim server("corpus_ip_synthetic");
  const std::string config = inference_perf_config(
      "corpus_ip_synthetic_config",
      std::string("load:\n  type: constant\n  interval: 15\n  stages:\n  - rate: 1\n"
                  "    duration: 30\n  - rate: 2\n    duration: 30\napi:\n  type: completion\n"
                  "server:\n  type: sglang\n  model_name: HuggingFaceTB/SmolLM2-135M-Instruct\n"
                  "  base_url: http://0.0.0.0:8000\ndata:\n  type: synthetic\n"
                  "  input_distribution:\n    min: 10\n    max: 100\n    mean: 50\n"
                  "    std_dev: 10\n  output_distribution:\n    min: 10\n    max: 100\n"
                  "    mean: 50\n    std_dev: 10\n") +
          kMetricsAndReport,
      server.url());
  const auto r = tokenbench({"run", "--config", config, "--model", "sim-model", "--output-dir",
                             make_temp_dir("corpus_ip_synthetic_run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--input-dist normal:50,10"), std::string::npos) << r.err;
  const auto saw = server.saw();
  ASSERT_GE(saw.size(), 4u);
  for (const auto& q : saw) {
    EXPECT_FALSE(q["ignore_eos"].get<bool>());
    EXPECT_GE(q["max_tokens"].get<int>(), 1);
  }
}

// The repository's config.yml, examples/sglang/config.yml and examples/multilora/
// multilora_config.yml read ShareGPT without a path (inference-perf downloads it): refused, with
// what to give. The multi-LoRA split itself translates (checked with a path given).
TEST(PeerCorpus, InferencePerfShareGptNeedsAFile) {
  const std::string root = inference_perf_config(
      "corpus_ip_root",
      "load:\n  type: constant\n  stages:\n  - rate: 1\n    duration: 30\napi: \n"
      "  type: completion\n  streaming: true\nserver:\n  type: vllm\n"
      "  model_name: HuggingFaceTB/SmolLM2-135M-Instruct\n  base_url: http://0.0.0.0:8000\n"
      "  ignore_eos: true\ndata:\n  type: shareGPT\n",
      "http://127.0.0.1:1");
  expect_refused(tokenbench({"run", "--config", root}), "needs data.path");
  const std::string sglang = inference_perf_config(
      "corpus_ip_sglang",
      "data:\n  type: shareGPT\nload:\n  type: constant\n  stages:\n  - rate: 1\n"
      "    duration: 30\napi: \n  type: chat\nserver:\n  type: sglang\n"
      "  model_name: HuggingFaceTB/SmolLM2-135M-Instruct\n  base_url: http://0.0.0.0:8000\n",
      "http://127.0.0.1:1");
  expect_refused(tokenbench({"run", "--config", sglang}), "needs data.path");
  const std::string lora = std::string(
      "load:\n  type: constant\n  stages:\n  - rate: 1\n    duration: 30\n"
      "  lora_traffic_split:\n    - name: movie\n      split: 0.50\n    - name: consumer\n"
      "      split: 0.50\napi: \n  type: completion\n  streaming: true\nserver:\n  type: vllm\n"
      "  model_name: Qwen/Qwen2.5-0.5B-Instruct\n  base_url: http://0.0.0.0:8000\n"
      "  ignore_eos: true\ndata:\n  type: shareGPT\n");
  expect_refused(
      tokenbench({"run", "--config", inference_perf_config("corpus_ip_lora", lora, "http://x")}),
      "needs data.path");
  // serve-sim's adapters are lora-0 and lora-1 (its engine model, 100 times faster).
  LoggedSim server("corpus_ip_lora_run", {"--time-scale", "100", "--lora-adapters", "2"});
  const std::string file = make_temp_dir("corpus_ip_lora_data") + "/sharegpt.json";
  std::ofstream(file) << R"([{"conversations": [{"from": "human", "value": "one two three four"},)"
                         R"( {"from": "gpt", "value": "a b c d e"}]}])";
  std::string served = lora + "  path: " + file + "\n";
  served.replace(served.find("movie"), 5, "lora-0");
  served.replace(served.find("consumer"), 8, "lora-1");
  served.replace(served.find("rate: 1"), 7, "rate: 10");  // requests enough for both
  const auto r = tokenbench(
      {"run", "--config", inference_perf_config("corpus_ip_lora_path", served, server.url()),
       "--model", "sim-model", "--output-dir", make_temp_dir("corpus_ip_lora_out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("is --lora-weights lora-0=0.50,lora-1=0.50"), std::string::npos) << r.err;
  int adapters[2] = {0, 0};
  for (const auto& q : server.saw()) {
    ASSERT_GE(q["lora"].get<int>(), 0) << q;  // every request names an adapter
    ++adapters[q["lora"].get<int>()];
  }
  EXPECT_GT(adapters[0], 0);
  EXPECT_GT(adapters[1], 0);
}

// A ShareGPT file of two conversations (prompts of 5 words, replies of 6 and 7).
std::string sharegpt_file(const std::string& name) {
  const std::string path = make_temp_dir(name) + "/ShareGPT_V3_unfiltered_cleaned_split.json";
  std::ofstream(path)
      << R"([{"conversations": [{"from": "human", "value": "one two three four five"},)"
         R"( {"from": "gpt", "value": "a b c d e f"}]},)"
         R"( {"conversations": [{"from": "human", "value": "six seven eight nine ten"},)"
         R"( {"from": "gpt", "value": "g h i j k l m"}]}])";
  return path;
}

// vllm-project/vllm docs/benchmarking/cli.md (9ba5e24c): "Online Benchmark" and "Running With
// Sampling Parameters" (ShareGPT from a local file, completions), "Text Embeddings"; the
// datasets it does not build (prefix_repetition, random-mm) and the rerank backend are refused.
TEST(PeerCorpus, VllmBenchServeDocs) {
  LoggedSim server("corpus_vllm");
  const std::string data = sharegpt_file("corpus_vllm_data");
  const std::string dir = make_temp_dir("corpus_vllm_sharegpt");
  auto r = tokenbench({"bench",          "serve",      "--backend",      "vllm",
                       "--model",        "sim-model",  "--endpoint",     "/v1/completions",
                       "--dataset-name", "sharegpt",   "--dataset-path", data,
                       "--top-k",        "10",         "--top-p",        "0.9",
                       "--temperature",  "0.5",        "--num-prompts",  "10",
                       "--base-url",     server.url(), "--output-dir",   dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto saw = server.saw();
  ASSERT_EQ(saw.size(), 10u);
  for (const auto& q : saw) {
    EXPECT_EQ(q["api"], "completions");
    EXPECT_EQ(q["prompt_tokens"], 5);
    EXPECT_TRUE(q["max_tokens"] == 6 || q["max_tokens"] == 7) << q;  // each reply's length
  }
  std::ifstream yaml(dir + "/config.yaml");
  const std::string config((std::istreambuf_iterator<char>(yaml)), {});
  EXPECT_NE(config.find("top_k"), std::string::npos);

  LoggedSim embeddings("corpus_vllm_embeddings");
  r = tokenbench({"bench", "serve", "--model", "sim-model", "--backend", "openai-embeddings",
                  "--endpoint", "/v1/embeddings", "--dataset-name", "sharegpt", "--dataset-path",
                  data, "--num-prompts", "4", "--base-url", embeddings.url(), "--output-dir",
                  make_temp_dir("corpus_vllm_embeddings_run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& q : embeddings.saw()) EXPECT_EQ(q["api"], "embeddings");

  for (const auto& [args, why] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--backend", "openai", "--model", "m", "--dataset-name", "prefix_repetition",
             "--num-prompts", "100"},
            "--dataset-name prefix_repetition (vLLM) is not built in"},
           {{"--backend", "openai-chat", "--model", "m", "--endpoint", "/v1/chat/completions",
             "--dataset-name", "random-mm", "--num-prompts", "100"},
            "--dataset-name random-mm (vLLM) is not built in"},
           {{"--model", "m", "--backend", "vllm-rerank", "--endpoint", "/v1/rerank",
             "--dataset-name", "random-rerank"},
            "--backend vllm-rerank (vLLM) is not an OpenAI-compatible API"}}) {
    std::vector<std::string> all = {"bench", "serve"};
    all.insert(all.end(), args.begin(), args.end());
    const auto refused = tokenbench(all);
    EXPECT_EQ(refused.exit_code, 1) << refused.err;
    EXPECT_NE(refused.err.find(why), std::string::npos) << refused.err;
  }
}

// vLLM's random runs: docs/design/p2p_nccl_connector.md (fb6c0501: --ignore-eos --burstiness 100
// --percentile-metrics --metric-percentiles --trust-remote-code --request-rate 3), benchmarks/
// auto_tune/auto_tune.sh (3ed2c21a: --goodput e2el:MS --request-rate inf --random-prefix-len) and
// evalscope's docs/en/user_guides/stress_test/vs_vllm_bench.md (fde259d2: openai-chat,
// --max-concurrency 50). Counts cut to 12; their --tokenizer (a download) left out.
TEST(PeerCorpus, VllmRandomRuns) {
  LoggedSim server("corpus_vllm_random");
  const std::string port = server.url().substr(server.url().rfind(':') + 1);
  auto r = tokenbench({"bench",
                       "serve",
                       "--backend",
                       "vllm",
                       "--model",
                       "sim-model",
                       "--dataset-name",
                       "random",
                       "--host",
                       "127.0.0.1",
                       "--port",
                       port,
                       "--random-input-len",
                       "64",
                       "--random-output-len",
                       "16",
                       "--ignore-eos",
                       "--burstiness",
                       "100",
                       "--percentile-metrics",
                       "ttft,tpot,itl,e2el",
                       "--metric-percentiles",
                       "90,95,99",
                       "--seed",
                       "1764800000",
                       "--trust-remote-code",
                       "--request-rate",
                       "30",
                       "--num-prompts",
                       "12",
                       "--output-dir",
                       make_temp_dir("corpus_vllm_p2p")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto saw = server.saw();
  ASSERT_EQ(saw.size(), 12u);
  for (const auto& q : saw) {
    EXPECT_EQ(q["api"], "completions");
    EXPECT_EQ(q["max_tokens"], 16);
    EXPECT_TRUE(q["ignore_eos"].get<bool>());
    EXPECT_GE(q["prompt_tokens"].get<int>(), 64);
  }

  LoggedSim tuned("corpus_vllm_tune");
  r = tokenbench({"bench",
                  "serve",
                  "--backend",
                  "vllm",
                  "--model",
                  "sim-model",
                  "--dataset-name",
                  "random",
                  "--random-input-len",
                  "48",
                  "--random-output-len",
                  "16",
                  "--ignore-eos",
                  "--disable-tqdm",
                  "--request-rate",
                  "inf",
                  "--percentile-metrics",
                  "ttft,tpot,itl,e2el",
                  "--goodput",
                  "e2el:100000000000",
                  "--num-prompts",
                  "12",
                  "--random-prefix-len",
                  "16",
                  "--base-url",
                  tuned.url(),
                  "--output-dir",
                  make_temp_dir("corpus_vllm_tune_run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& q : tuned.saw()) EXPECT_GE(q["prompt_tokens"].get<int>(), 16 + 48);

  LoggedSim chat("corpus_vllm_chat");
  const std::string chat_port = chat.url().substr(chat.url().rfind(':') + 1);
  r = tokenbench({"bench",
                  "serve",
                  "--max-concurrency",
                  "50",
                  "--num-prompts",
                  "12",
                  "--host",
                  "127.0.0.1",
                  "--port",
                  chat_port,
                  "--backend",
                  "openai-chat",
                  "--model",
                  "sim-model",
                  "--dataset-name",
                  "random",
                  "--random-input-len",
                  "100",
                  "--random-output-len",
                  "100",
                  "--endpoint",
                  "/v1/chat/completions",
                  "--ignore-eos",
                  "--output-dir",
                  make_temp_dir("corpus_vllm_chat_run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  saw = chat.saw();
  ASSERT_EQ(saw.size(), 12u);
  for (const auto& q : saw) {
    EXPECT_EQ(q["api"], "chat");
    EXPECT_EQ(q["max_tokens"], 100);
  }
}

// modelscope/evalscope (fde259d2) docs/en/user_guides/stress_test: examples.md's fixed prompt,
// random prompts with a shared prefix and embeddings, vs_vllm_bench.md's random run; counts cut
// where said, --tokenizer-path (a download) and the DashScope key left out.
TEST(PeerCorpus, EvalscopePerfDocs) {
  LoggedSim server("corpus_evalscope");
  const std::string chat = server.url() + "/v1/chat/completions";
  auto r = tokenbench({"perf",
                       "--url",
                       chat,
                       "--parallel",
                       "2",
                       "--model",
                       "sim-model",
                       "--log-every-n-query",
                       "10",
                       "--number",
                       "20",
                       "--api",
                       "openai",
                       "--temperature",
                       "0.9",
                       "--max-tokens",
                       "1024",
                       "--prompt",
                       "Write a science fiction story, please begin your performance",
                       "--output-dir",
                       make_temp_dir("corpus_evalscope_prompt")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto saw = server.saw();
  ASSERT_EQ(saw.size(), 20u);
  for (const auto& q : saw) {
    EXPECT_EQ(q["api"], "chat");
    EXPECT_EQ(q["max_tokens"], 1024);
    EXPECT_FALSE(q["ignore_eos"].get<bool>());  // --max-tokens alone: the model may stop
  }

  LoggedSim prefixed("corpus_evalscope_prefix");
  r = tokenbench({"perf",
                  "--parallel",
                  "20",
                  "--model",
                  "sim-model",
                  "--url",
                  prefixed.url() + "/v1/chat/completions",
                  "--api",
                  "openai",
                  "--dataset",
                  "random",
                  "--min-tokens",
                  "128",
                  "--max-tokens",
                  "128",
                  "--prefix-length",
                  "64",
                  "--min-prompt-length",
                  "1024",
                  "--max-prompt-length",
                  "2048",
                  "--number",
                  "20",
                  "--debug",
                  "--output-dir",
                  make_temp_dir("corpus_evalscope_prefix_run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  saw = prefixed.saw();
  ASSERT_EQ(saw.size(), 20u);
  for (const auto& q : saw) {
    EXPECT_EQ(q["max_tokens"], 128);
    EXPECT_GE(q["prompt_tokens"].get<int>(), 1024 + 64);
    EXPECT_LE(q["prompt_tokens"].get<int>(), 2048 + 64 + 16);
  }

  LoggedSim fifty("corpus_evalscope_fifty");
  r = tokenbench({"perf",
                  "--parallel",
                  "50",
                  "--number",
                  "100",
                  "--log-every-n-query",
                  "1000",
                  "--model",
                  "sim-model",
                  "--url",
                  fifty.url() + "/v1/chat/completions",
                  "--api",
                  "openai",
                  "--dataset",
                  "random",
                  "--max-tokens",
                  "100",
                  "--prefix-length",
                  "0",
                  "--min-prompt-length",
                  "100",
                  "--max-prompt-length",
                  "100",
                  "--extra-args",
                  R"({"ignore_eos": true})",
                  "--output-dir",
                  make_temp_dir("corpus_evalscope_fifty_run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  saw = fifty.saw();
  ASSERT_EQ(saw.size(), 100u);
  for (const auto& q : saw) {
    EXPECT_EQ(q["max_tokens"], 100);
    EXPECT_TRUE(q["ignore_eos"].get<bool>());
    EXPECT_GE(q["prompt_tokens"].get<int>(), 100);
    EXPECT_LE(q["prompt_tokens"].get<int>(), 116);  // the chat template's few tokens
  }

  LoggedSim embeddings("corpus_evalscope_embeddings");
  r = tokenbench({"perf", "--parallel", "2", "--number", "10", "--model", "sim-model", "--url",
                  embeddings.url() + "/v1/embeddings", "--api", "openai_embedding", "--dataset",
                  "random_embedding", "--min-prompt-length", "256", "--max-prompt-length", "256",
                  "--output-dir", make_temp_dir("corpus_evalscope_embeddings_run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  saw = embeddings.saw();
  ASSERT_EQ(saw.size(), 10u);
  for (const auto& q : saw) EXPECT_EQ(q["api"], "embeddings");
}

// EvalScope's commands that cannot run here say why: a local model (examples.md), and datasets
// it downloads (openqa) or builds (speed_benchmark.md).
TEST(PeerCorpus, EvalscopePerfRefusals) {
  const std::string url = "http://127.0.0.1:1/v1/chat/completions";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--model", "Qwen/Qwen2.5-0.5B-Instruct", "--number", "20", "--parallel", "2", "--api",
        "local", "--dataset", "openqa"},
       "--api local"},
      {{"--url", url, "--parallel", "2", "--model", "qwen2.5", "--number", "20", "--api", "openai",
        "--temperature", "0.7", "--max-tokens", "1024", "--dataset", "openqa", "--stream"},
       "--dataset openqa (EvalScope) is downloaded from ModelScope"},
      {{"--parallel",
        "1",
        "--url",
        "http://127.0.0.1:1/v1/completions",
        "--model",
        "qwen2.5",
        "--number",
        "8",
        "--log-every-n-query",
        "5",
        "--connect-timeout",
        "6000",
        "--read-timeout",
        "6000",
        "--max-tokens",
        "2048",
        "--min-tokens",
        "2048",
        "--api",
        "openai",
        "--dataset",
        "speed_benchmark",
        "--debug"},
       "--dataset speed_benchmark (EvalScope) is its fixed set of prompt lengths"},
  };
  for (const auto& [args, why] : cases) {
    std::vector<std::string> all = {"perf"};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = tokenbench(all);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  }
}

// quick_start.md's sweep (a count per --parallel level: --number 10 20 100 200 400 beside
// --parallel 1 10 50 100 200, 1024 tokens each way), cut to three levels of 16 tokens; and
// examples.md's open loop (--open-loop --rate 5 10 20 --number 500 1000 2000), cut to two rates:
// each level sends its own count, and EvalScope's run directories are named by them.
TEST(PeerCorpus, EvalscopePairedCountsAndTheOpenLoop) {
  LoggedSim server("corpus_evalscope_quickstart");
  const std::string dir = make_temp_dir("corpus_evalscope_quickstart_run");
  auto r = tokenbench({"perf",
                       "--parallel",
                       "1",
                       "2",
                       "4",
                       "--number",
                       "3",
                       "6",
                       "12",
                       "--model",
                       "sim-model",
                       "--url",
                       server.url() + "/v1/chat/completions",
                       "--api",
                       "openai",
                       "--dataset",
                       "random",
                       "--max-tokens",
                       "16",
                       "--min-tokens",
                       "16",
                       "--prefix-length",
                       "0",
                       "--min-prompt-length",
                       "64",
                       "--max-prompt-length",
                       "64",
                       "--extra-args",
                       R"({"ignore_eos": true})",
                       "--outputs-dir",
                       dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.saw().size(), 21u);  // 3 + 6 + 12
  for (const std::string run :
       {"parallel_1_number_3", "parallel_2_number_6", "parallel_4_number_12"}) {
    const auto summary = read_json(dir + "/evalscope/" + run + "/benchmark_summary.json");
    EXPECT_EQ(summary["Total Requests"], summary["Success Requests"]) << run;
  }
  EXPECT_EQ(read_json(dir + "/c4/summary.json")["completed"], 12);

  LoggedSim open("corpus_evalscope_open_loop");
  const std::string loop = make_temp_dir("corpus_evalscope_open_loop_run");
  r = tokenbench({"perf",        "--url",         open.url() + "/v1/chat/completions",
                  "--model",     "sim-model",     "--api",
                  "openai",      "--dataset",     "random",
                  "--open-loop", "--rate",        "20",
                  "40",          "--number",      "10",
                  "20",          "--max-tokens",  "8",
                  "--stream",    "--outputs-dir", loop});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(open.saw().size(), 30u);
  EXPECT_TRUE(
      std::filesystem::exists(loop + "/evalscope/rate_40_number_20/benchmark_summary.json"));
  const auto parallel = tokenbench({"perf", "--url", open.url() + "/v1/chat/completions",
                                    "--open-loop", "--parallel", "4", "--rate", "20"});
  EXPECT_EQ(parallel.exit_code, 1);
  EXPECT_NE(parallel.err.find("--open-loop (EvalScope) ignores --parallel"), std::string::npos)
      << parallel.err;
}

}  // namespace
}  // namespace tokenbench::e2e
