// End to end: vLLM's `bench serve` and EvalScope's `perf` make their tool's defaults explicit,
// their rows' rules reach the server as the tool would send (from the server's request log), and
// inference-perf's length distributions keep their defaults and clamps.

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "process.h"

namespace tokenbench::e2e {
namespace {

ProcessResult tokenbench(std::vector<std::string> args) {
  args.insert(args.begin(), TOKENBENCH_BINARY);
  args.insert(args.end(), {"--gpu-metrics", "off"});
  return run_process(args, std::chrono::seconds(90));
}

// The run's config.yaml: every setting the run used.
std::string config_of(const std::string& dir) { return slurp(dir + "/config.yaml"); }

// vllm-project/vllm@21964e04 serve.py: without --ignore-eos vLLM sends ignore_eos false (the
// model stops when it will), and --lora-modules are assigned at random; its --header KEY=VALUE,
// --metadata KEY=VALUE and --label NAME are tokenbench's header and labels; its --no-stream loads
// a dataset and is ignored, the requests still streamed.
TEST(PeerDefaults, BenchServeSendsWhatVllmSends) {
  LoggedSim server("peer_defaults_vllm", {"--time-scale", "100", "--lora-adapters", "2"});
  const std::string dir = make_temp_dir("peer_defaults_vllm_run");
  const auto r = tokenbench({"bench",
                             "serve",
                             "--base-url",
                             server.url(),
                             "--model",
                             "sim-model",
                             "--num-prompts",
                             "6",
                             "--random-input-len",
                             "16",
                             "--random-output-len",
                             "4",
                             "--header",
                             "X-Team=infra",
                             "--metadata",
                             "gpu=h100",
                             "--label",
                             "baseline",
                             "--no-stream",
                             "--lora-modules",
                             "lora-0",
                             "lora-1",
                             "--output-dir",
                             dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("bench serve: --no-ignore-eos: vLLM's default without --ignore-eos"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--no-stream (vLLM) is ignored"), std::string::npos) << r.err;
  const auto saw = server.saw();
  ASSERT_EQ(saw.size(), 6u);
  for (const auto& q : saw) {
    EXPECT_FALSE(q["ignore_eos"].get<bool>());
    EXPECT_TRUE(q["stream"].get<bool>());
    EXPECT_EQ(q["max_tokens"], 4);
  }
  const std::string c = config_of(dir);
  EXPECT_NE(c.find("lora_assignment: random"), std::string::npos) << c;
  EXPECT_NE(c.find("labels: [gpu=h100, label=baseline]"), std::string::npos) << c;
  EXPECT_NE(c.find("X-Team"), std::string::npos) << c;

  // --ignore-eos given: ignore_eos is sent, as vLLM sends it; on plain run --no-stream is
  // tokenbench's own.
  LoggedSim eos("peer_defaults_vllm_eos");
  const auto given =
      tokenbench({"bench", "serve", "--base-url", eos.url(), "--model", "sim-model",
                  "--num-prompts", "2", "--random-input-len", "16", "--random-output-len", "4",
                  "--ignore-eos", "--output-dir", make_temp_dir("peer_defaults_vllm_eos_run")});
  ASSERT_EQ(given.exit_code, 0) << given.err;
  for (const auto& q : eos.saw()) EXPECT_TRUE(q["ignore_eos"].get<bool>());
  LoggedSim plain("peer_defaults_run_no_stream");
  const auto run =
      tokenbench({"run", "--base-url", plain.url(), "--model", "sim-model", "--num-prompts", "2",
                  "--input-len", "16", "--output-len", "4", "--no-stream", "--output-dir",
                  make_temp_dir("peer_defaults_run_no_stream_run")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const auto& q : plain.saw()) EXPECT_FALSE(q["stream"].get<bool>());
}

// modelscope/evalscope@fde259d2 arguments.py: --parallel 1, --max-tokens 2048 (no ignore_eos) and
// --temperature 0.0 unless given; -n is --number; --max-tokens MIN MAX draws each request's limit
// between them; --warmup-num below 1 is a share of --number.
TEST(PeerDefaults, PerfSendsWhatEvalScopeSends) {
  LoggedSim server("peer_defaults_evalscope");
  const std::string dir = make_temp_dir("peer_defaults_evalscope_run");
  auto r =
      tokenbench({"perf", "--url", server.url() + "/v1/chat/completions", "--model", "sim-model",
                  "-n", "3", "--api", "openai", "--dataset", "random", "--min-prompt-length", "32",
                  "--max-prompt-length", "32", "--outputs-dir", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto saw = server.saw();
  ASSERT_EQ(saw.size(), 3u);
  for (const auto& q : saw) {
    EXPECT_EQ(q["max_tokens"], 2048);
    EXPECT_FALSE(q["ignore_eos"].get<bool>());
  }
  EXPECT_EQ(read_json(dir + "/summary.json")["max_concurrency"], 1);
  EXPECT_NE(config_of(dir).find(R"(extra_body: "{\"temperature\":0.0}")"), std::string::npos)
      << config_of(dir);

  LoggedSim spread("peer_defaults_evalscope_spread");
  r = tokenbench({"perf",
                  "--url",
                  spread.url() + "/v1/chat/completions",
                  "--model",
                  "sim-model",
                  "--parallel",
                  "2",
                  "--number",
                  "20",
                  "--warmup-num",
                  "0.1",
                  "--api",
                  "openai",
                  "--dataset",
                  "random",
                  "--max-tokens",
                  "4",
                  "12",
                  "--temperature",
                  "0.5",
                  "--outputs-dir",
                  make_temp_dir("peer_defaults_evalscope_spread_run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--warmup-num 0.1 (EvalScope) is --warmup 2"), std::string::npos) << r.err;
  saw = spread.saw();
  ASSERT_EQ(saw.size(), 22u);  // 2 warmup requests, then 20
  int low = 12;
  int high = 4;
  for (const auto& q : saw) {
    low = std::min(low, q["max_tokens"].get<int>());
    high = std::max(high, q["max_tokens"].get<int>());
    EXPECT_FALSE(q["ignore_eos"].get<bool>());
  }
  EXPECT_GE(low, 4);
  EXPECT_LE(high, 12);
  EXPECT_LT(low, high);  // drawn, not fixed

  // No --dataset: EvalScope's openqa is a download; random prompts, and the line says so.
  LoggedSim bare("peer_defaults_evalscope_bare");
  r = tokenbench({"perf", "--url", bare.url() + "/v1/chat/completions", "--model", "sim-model",
                  "--number", "2", "--max-tokens", "4", "--outputs-dir",
                  make_temp_dir("peer_defaults_evalscope_bare_run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("EvalScope's default --dataset openqa is downloaded"), std::string::npos)
      << r.err;
  EXPECT_EQ(bare.saw().size(), 2u);
}

// kubernetes-sigs/inference-perf@7de5ef2e: a distribution's unset keys are its defaults (normal,
// std_dev 200, min 10, max 1024), its lengths clamped to [min, max]; data.type is mock without
// one.
TEST(PeerDefaults, InferencePerfDistributionsKeepTheirDefaultsAndClamps) {
  LoggedSim server("peer_defaults_ip");
  const std::string dir = make_temp_dir("peer_defaults_ip_run");
  const std::string config = dir + ".yml";
  std::ofstream(config) << "load:\n  type: concurrent\n  stages:\n  - concurrency_level: 4\n"
                           "    num_requests: 40\napi:\n  type: completion\n  streaming: true\n"
                           "server:\n  model_name: sim-model\n  base_url: "
                        << server.url()
                        << "\n  ignore_eos: true\ndata:\n  type: random\n  input_distribution:\n"
                           "    mean: 64\n    max: 80\n  output_distribution:\n    mean: 6\n"
                           "    std_dev: 20\n    min: 2\n    max: 8\n";
  const auto r = tokenbench({"run", "--config", config, "--output-dir", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string c = config_of(dir);
  EXPECT_NE(c.find("input_dist: normal:64,200,10,80"), std::string::npos) << c;
  EXPECT_NE(c.find("output_dist: normal:6,20,2,8"), std::string::npos) << c;
  int at_max = 0;
  for (const auto& q : server.saw()) {
    EXPECT_GE(q["max_tokens"].get<int>(), 2);
    EXPECT_LE(q["max_tokens"].get<int>(), 8);
    at_max += q["max_tokens"] == 8 ? 1 : 0;
  }
  EXPECT_GT(at_max, 5);  // an SD of 20 around 6 reaches past 8 in 46% of draws

  const std::string mock = dir + "-mock.yml";
  std::ofstream(mock) << "load:\n  type: concurrent\n  stages:\n  - concurrency_level: 1\n"
                         "    num_requests: 2\nserver:\n  model_name: sim-model\n  base_url: "
                      << server.url() << "\n";
  const auto m = tokenbench({"run", "--config", mock, "--output-len", "4", "--output-dir",
                             make_temp_dir("peer_defaults_ip_mock_run")});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(m.err.find("inference-perf's data.type (its default mock) is --input-len 4"),
            std::string::npos)
      << m.err;
}

// inference-perf's README quick start (kubernetes-sigs/inference-perf at 7de5ef2e), its server
// and 60 s cut to 1: the command line whole, under `tokenbench inference-perf`. Its defaults hold
// (completions, no ignore_eos, a Distribution's lengths: normal 512/200 in [10, 1024]); a key
// given on the command line replaces the file's; its report commands are refused.
TEST(PeerDefaults, InferencePerfCommandLine) {
  LoggedSim server("peer_defaults_ip_cli");
  const std::string dir = make_temp_dir("peer_defaults_ip_cli_run");
  auto r = tokenbench({"inference-perf", "--server.type", "vllm", "--server.base_url", server.url(),
                       "--data.type", "random", "--load.type", "constant", "--load.stages",
                       R"([{"rate": 10, "duration": 1}])", "--api.streaming", "true",
                       "--output-dir", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("inference-perf: inference-perf's load.stages' rates is --request-rate 10"),
            std::string::npos)
      << r.err;
  auto saw = server.saw();
  ASSERT_GE(saw.size(), 8u);  // 10 a second for 1 s, constant arrivals
  ASSERT_LE(saw.size(), 11u);
  for (const auto& q : saw) {
    EXPECT_EQ(q["api"], "completions");
    EXPECT_TRUE(q["stream"].get<bool>());
    EXPECT_FALSE(q["ignore_eos"].get<bool>());
    EXPECT_GE(q["max_tokens"].get<int>(), 10);
    EXPECT_LE(q["max_tokens"].get<int>(), 1024);
  }
  EXPECT_NE(config_of(dir).find("input_dist: normal:512,200,10,1024"), std::string::npos);

  // --config_file, one key replaced on the command line.
  LoggedSim other("peer_defaults_ip_cli_file");
  const std::string file = dir + ".yml";
  std::ofstream(file) << "load:\n  type: concurrent\n  stages:\n  - concurrency_level: 2\n"
                         "    num_requests: 40\napi:\n  type: chat\n  streaming: true\n"
                         "server:\n  base_url: "
                      << other.url() << "\ndata:\n  type: mock\n";
  r = tokenbench({"inference-perf", "-c", file, "--load.stages",
                  R"([{"concurrency_level": 1, "num_requests": 3}])", "--log-level", "INFO",
                  "--output-len", "4", "--output-dir",
                  make_temp_dir("peer_defaults_ip_cli_file_run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  saw = other.saw();
  ASSERT_EQ(saw.size(), 3u);
  for (const auto& q : saw) EXPECT_EQ(q["api"], "chat");

  for (const char* report : {"--analyze", "-u"}) {
    const auto refused = tokenbench({"inference-perf", report, "reports/"});
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_NE(refused.err.find("tokenbench report DIR"), std::string::npos) << refused.err;
  }
}

}  // namespace
}  // namespace tokenbench::e2e
