// End to end: SGLang's bench_serving command lines on `run` (docs/CLI.md, "A peer's whole command
// line"), copied from sgl-project/sglang: docs/developer_guide/bench_serving.md at 2409eacc and
// the docstring of python/sglang/bench_serving.py at 0033168f. Each is refused with its reason or
// runs against serve-sim, whose --request-log says what the server was asked: the API (its
// native /generate too), the lengths SGLang draws ([LEN x R, LEN]), ignore_eos, streaming and the
// count.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "process.h"

namespace tokenbench::e2e {
namespace {

ProcessResult run(std::vector<std::string> args, const std::string& dir = "") {
  args.insert(args.begin(), {TOKENBENCH_BINARY, "run"});
  if (!dir.empty()) args.insert(args.end(), {"--output-dir", dir, "--gpu-metrics", "off"});
  return run_process(args, std::chrono::seconds(90));
}

// The documented commands as they are: each is refused in one line with its reason.
TEST(PeerSglang, DocumentedCommandsThatCannotRunSayWhy) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      // bench_serving.md: SGLang downloads ShareGPT; tokenbench reads a local file.
      {{"--peer", "sglang", "--backend", "vllm", "--base-url", "http://127.0.0.1:8000",
        "--num-prompts", "1000", "--model", "meta-llama/Llama-3.1-8B-Instruct"},
       "give --dataset-path FILE"},
      {{"--backend", "trt", "--base-url", "http://127.0.0.1:8000", "--model", "your-trt-llm-model",
        "--dataset-name", "random", "--num-prompts", "100", "--disable-ignore-eos"},
       "tokenbench speaks SGLang's /generate and OpenAI-compatible APIs"},
      {{"--backend", "sglang-oai", "--dataset-name", "mmmu"}, "its datasets here"},
      {{"--backend", "sglang-oai", "--apply-chat-template"}, "use --backend sglang-oai-chat"},
      {{"--peer", "nobody"}, "--peer nobody is not a peer"},
      {{"--backend", "sglang-oai", "--dataset-name", "generated-shared-prefix", "--gsp-num-groups",
        "many"},
       "--gsp-num-groups many (SGLang) is refused: a whole number of 1 or more"},
  };
  for (const auto& [args, why] : cases) {
    const auto r = run(args);
    EXPECT_EQ(r.exit_code, 1) << args[1];
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // one line
  }
}

// bench_serving.md's random run (--request-rate 100 --max-concurrency 512 --output-file
// --output-details) with the remedy its refusal names, --backend sglang-oai, and 20 prompts for
// the test's time: SGLang's lengths [512, 1024], ignore_eos, Poisson arrivals, one warmup.
TEST(PeerSglang, RandomLengthsRatesAndTheOpenAiBackend) {
  LoggedSim server("sglang_random");
  const std::string dir = make_temp_dir("sglang_random_run");
  const auto r = run({"--backend",
                      "sglang-oai",
                      "--host",
                      "127.0.0.1",
                      "--port",
                      server.port(),
                      "--model",
                      "sim-model",
                      "--dataset-name",
                      "random",
                      "--random-input-len",
                      "1024",
                      "--random-output-len",
                      "1024",
                      "--random-range-ratio",
                      "0.5",
                      "--num-prompts",
                      "20",
                      "--request-rate",
                      "100",
                      "--max-concurrency",
                      "512",
                      "--output-file",
                      dir + "/sglang_random.jsonl",
                      "--output-details"},
                     "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--request-rate 100 (SGLang) is --request-rate 100 --arrival poisson"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("no --warmup-requests (SGLang) is --warmup 1"), std::string::npos);
  const auto saw = server.saw();
  ASSERT_EQ(saw.size(), 21u);  // one warmup, then the 20
  std::int64_t lo = 1 << 30;
  std::int64_t hi = 0;
  for (const auto& q : saw) {
    EXPECT_EQ(q["api"], "completions");
    EXPECT_TRUE(q["stream"].get<bool>());
    EXPECT_TRUE(q["ignore_eos"].get<bool>());
    EXPECT_GE(q["prompt_tokens"].get<int>(), 512) << q;
    EXPECT_LE(q["prompt_tokens"].get<int>(), 1024 + 8) << q;  // the server's count, roughly
    lo = std::min(lo, q["max_tokens"].get<std::int64_t>());
    hi = std::max(hi, q["max_tokens"].get<std::int64_t>());
  }
  EXPECT_GE(lo, 512);
  EXPECT_LE(hi, 1024);
  EXPECT_LT(lo, hi);                                      // drawn, not fixed
  const auto summary = read_json(dir + "/summary.json");  // --output-file's folder
  EXPECT_EQ(summary["completed"], 20);
  EXPECT_EQ(summary["tokenbench"]["config"]["arrival"], "gamma");  // Poisson: burstiness 1
}

// bench_serving.md's chat run (--backend vllm-chat --dataset-name random --num-prompts 500
// --apply-chat-template), 20 prompts: SGLang's defaults 1024/1024 with ratio 0 are lengths from
// 1 to 1024, every request at once (--request-rate inf).
TEST(PeerSglang, ChatBackendWithItsDefaults) {
  LoggedSim server("sglang_chat");
  const std::string dir = make_temp_dir("sglang_chat_run");
  const auto r = run({"--backend", "vllm-chat", "--base-url", server.url(), "--model", "sim-model",
                      "--dataset-name", "random", "--num-prompts", "20", "--apply-chat-template"},
                     dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto saw = server.saw();
  ASSERT_EQ(saw.size(), 21u);
  for (const auto& q : saw) {
    EXPECT_EQ(q["api"], "chat");
    EXPECT_GE(q["max_tokens"].get<int>(), 1);
    EXPECT_LE(q["max_tokens"].get<int>(), 1024);
    EXPECT_LE(q["prompt_tokens"].get<int>(), 1024 + 16);  // the chat template's few tokens
  }
  const auto summary = read_json(dir + "/summary.json");
  const auto& c = summary["tokenbench"]["config"];
  EXPECT_EQ(c["request_rate"], "inf");
  std::ifstream yaml(dir + "/config.yaml");
  const std::string config((std::istreambuf_iterator<char>(yaml)), {});
  EXPECT_NE(config.find("input_dist: uniform:1,1024"), std::string::npos) << config;
  EXPECT_NE(config.find("output_dist: uniform:1,1024"), std::string::npos);
}

// bench_serving.md's shared-prefix run (--dataset-name generated-shared-prefix with its --gsp-*
// flags and --num-prompts 1024), with the OpenAI backend and 4 groups of 3 for the test's time:
// every group's every question once, whatever --num-prompts says; each prompt the group's system
// prompt and its own question.
TEST(PeerSglang, GeneratedSharedPrefix) {
  LoggedSim server("sglang_gsp");
  const std::string dir = make_temp_dir("sglang_gsp_run");
  const auto r = run({"--backend",
                      "sglang-oai",
                      "--host",
                      "127.0.0.1",
                      "--port",
                      server.port(),
                      "--model",
                      "sim-model",
                      "--dataset-name",
                      "generated-shared-prefix",
                      "--gsp-num-groups",
                      "4",
                      "--gsp-prompts-per-group",
                      "3",
                      "--gsp-system-prompt-len",
                      "256",
                      "--gsp-question-len",
                      "32",
                      "--gsp-output-len",
                      "16",
                      "--num-prompts",
                      "1024"},
                     dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--num-prompts 1024 (SGLang) is --num-prompts 12"), std::string::npos)
      << r.err;
  const auto saw = server.saw();
  ASSERT_EQ(saw.size(), 13u);  // a warmup and the 12
  for (const auto& q : saw) {
    EXPECT_EQ(q["max_tokens"], 16);
    EXPECT_GE(q["prompt_tokens"].get<int>(), 256 + 32);
    EXPECT_LE(q["prompt_tokens"].get<int>(), 256 + 32 + 8);
  }
  EXPECT_EQ(read_json(dir + "/summary.json")["tokenbench"]["config"]["dataset"], "shared-prefix");
}

// bench_serving.md's ShareGPT run (--backend vllm --dataset-name sharegpt --num-prompts 1000
// --sharegpt-output-len 256) with a local file and --peer sglang: each reply asks 256 tokens.
TEST(PeerSglang, ShareGptFromALocalFile) {
  LoggedSim server("sglang_sharegpt");
  const std::string dir = make_temp_dir("sglang_sharegpt_run");
  const std::string file = dir + "-sharegpt.json";
  std::ofstream(file)
      << R"([{"conversations": [{"from": "human", "value": "one two three four five"},)"
         R"( {"from": "gpt", "value": "a b c d e f"}]},)"
         R"( {"conversations": [{"from": "human", "value": "six seven eight nine ten"},)"
         R"( {"from": "gpt", "value": "g h i j k l"}]}])";
  const auto r = run({"--peer", "sglang", "--backend", "vllm", "--base-url", server.url(),
                      "--model", "sim-model", "--dataset-name", "sharegpt", "--dataset-path", file,
                      "--num-prompts", "4", "--sharegpt-output-len", "256"},
                     dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto saw = server.saw();
  ASSERT_EQ(saw.size(), 5u);
  for (const auto& q : saw) {
    EXPECT_EQ(q["api"], "completions");
    EXPECT_EQ(q["max_tokens"], 256);
    EXPECT_EQ(q["prompt_tokens"], 5);
  }
}

// SGLang's default backend, its native /generate (bench_serving.md, --peer sglang as the line
// carries no flag of SGLang's own; and bench_serving.py's docstring, 3000 prompts of 1024 tokens
// each way cut to 12 of 64 and 8): the server is asked POST /generate with sampling_params'
// max_new_tokens and ignore_eos, streamed; each event's cumulative text counts once, each
// event's running completion_tokens gives its tokens.
TEST(PeerSglang, TheNativeGenerateApi) {
  LoggedSim server("sglang_native");
  const std::string dir = make_temp_dir("sglang_native_run");
  auto r = run({"--peer",
                "sglang",
                "--backend",
                "sglang",
                "--host",
                "127.0.0.1",
                "--port",
                server.port(),
                "--num-prompts",
                "6",
                "--model",
                "sim-model",
                "--dataset-name",
                "random",
                "--random-input-len",
                "64",
                "--random-output-len",
                "8",
                "--random-range-ratio",
                "1",
                "--save-detailed"},
               dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--api sglang-generate (POST /generate, SGLang's native API)"),
            std::string::npos)
      << r.err;
  auto saw = server.saw();
  ASSERT_EQ(saw.size(), 7u);  // SGLang's one warmup request, then 6
  for (const auto& q : saw) {
    EXPECT_EQ(q["api"], "generate");
    EXPECT_EQ(q["max_tokens"], 8);
    EXPECT_TRUE(q["ignore_eos"].get<bool>());
    EXPECT_TRUE(q["stream"].get<bool>());
  }
  for (const auto& rec : read_records(dir + "/requests.jsonl")) {
    if (rec["phase"] != "measure") continue;
    EXPECT_EQ(rec["output_tokens"], 8);
    EXPECT_EQ(rec["output_source"], "usage");
    EXPECT_TRUE(rec["chunk_usage"].get<bool>());
    // Eight words of the simulator's vocabulary, each once: the events' new parts, not their
    // cumulative texts.
    const std::string text = rec["output_text"];
    EXPECT_EQ(std::count(text.begin(), text.end(), ' '), 8) << text;
    EXPECT_EQ(rec["output_chars"], text.size());
  }
  EXPECT_EQ(read_json(dir + "/summary.json")["total_output_tokens"], 48);

  LoggedSim docstring("sglang_native_docstring");
  r = run({"--backend", "sglang", "--base-url", docstring.url(), "--model", "sim-model",
           "--dataset-name", "random", "--num-prompts", "12", "--random-input", "64",
           "--random-output", "8", "--random-range-ratio", "0.5", "--disable-stream"},
          make_temp_dir("sglang_native_docstring_run"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  saw = docstring.saw();
  ASSERT_EQ(saw.size(), 13u);
  for (const auto& q : saw) {
    EXPECT_EQ(q["api"], "generate");
    EXPECT_FALSE(q["stream"].get<bool>());
    EXPECT_GE(q["max_tokens"].get<int>(), 4);  // [8 x 0.5, 8]
    EXPECT_LE(q["max_tokens"].get<int>(), 8);
  }
}

// A line of the flags both share is vLLM's, and says how to read it as SGLang's.
TEST(PeerSglang, ASharedLineIsVllmsAndSaysSo) {
  LoggedSim server("sglang_shared");
  const auto r = run(
      {"--backend", "sglang", "--base-url", server.url(), "--model", "sim-model", "--num-prompts",
       "3", "--random-input-len", "16", "--random-output-len", "4", "--random-range-ratio", "0.5"},
      make_temp_dir("sglang_shared_run"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("add --peer sglang to read the line as SGLang's"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("SGLang's bench_serving draws [LEN x R, LEN]: add --peer sglang"),
            std::string::npos);
  for (const auto& q : server.saw()) EXPECT_EQ(q["api"], "completions");
}

}  // namespace
}  // namespace tokenbench::e2e
