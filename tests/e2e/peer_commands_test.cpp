// End to end: a peer's whole command line as a way in (docs/CLI.md, "A peer's whole command
// line"). AIPerf's and GuideLLM's commands, copied from their READMEs and docs, run against
// serve-sim as the workload the peer would send (API, lengths, concurrency or rate, count), or
// are refused with the reason; `bench serve` and `perf` are `run` with vLLM's and EvalScope's
// flags; docs/CLI.md's tables are the ones the translation reads.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "process.h"

namespace tokenbench::e2e {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `verb` and the peer's arguments, with the results in `dir` and no history.
ProcessResult peer(const std::string& verb, std::vector<std::string> args, const std::string& dir) {
  std::vector<std::string> all{TOKENBENCH_BINARY, verb};
  all.insert(all.end(), args.begin(), args.end());
  if (!dir.empty()) all.insert(all.end(), {"--output-dir", dir, "--gpu-metrics", "off"});
  return run_process(all, std::chrono::seconds(90));
}

const nlohmann::json& config_of(const nlohmann::json& summary) {
  return summary["tokenbench"]["config"];
}

// AIPerf's README quick start (ai-dynamo/aiperf@db4f6397, README.md "Basic Usage"), the server's
// URL in place of localhost:8000: AIPerf's defaults become explicit (10 requests, one at a time,
// 550-token prompts), and the requests are streamed chat requests.
TEST(PeerCommands, AiperfQuickStartRunsWithAiperfsDefaults) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("aiperf_quickstart");
  const auto r = peer(
      "profile",
      {"--model", "sim-model", "--url", sim.url(), "--endpoint-type", "chat", "--streaming"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("tokenbench: profile: --endpoint-type chat (AIPerf / GenAI-Perf) is --api "
                       "openai-chat"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("no --request-count (AIPerf / GenAI-Perf) is --num-prompts 10"),
            std::string::npos);
  const auto summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["completed"], 10);
  EXPECT_EQ(summary["max_concurrency"], 1) << summary.dump().substr(0, 400);
  EXPECT_EQ(config_of(summary)["api"], "openai-chat");
  EXPECT_EQ(config_of(summary)["stream"], true);
  EXPECT_EQ(config_of(summary)["input_len"], 550);
  for (const auto& rec : read_records(dir + "/requests.jsonl")) {
    if (rec["phase"] != "measure") continue;
    EXPECT_TRUE(rec["streamed"].get<bool>());
    EXPECT_GE(rec["prompt_tokens"].get<int>(), 550);  // the server's count, its template included
  }
}

// The issue's AIPerf command and README's "Custom Configuration" shape: concurrency, count and
// lengths as given; without ignore_eos the model may stop early, as AIPerf asks only max_tokens.
TEST(PeerCommands, AiperfConcurrencyCountAndLengths) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("aiperf_custom");
  const auto r = peer("profile",
                      {"-m", "sim-model", "-u", sim.url().substr(7), "--endpoint-type", "chat",
                       "--streaming", "--concurrency", "4", "--request-count", "20",
                       "--synthetic-input-tokens-mean", "64", "--output-tokens-mean", "16"},
                      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["completed"], 20);
  EXPECT_EQ(config_of(summary)["max_concurrency"], 4);
  EXPECT_EQ(config_of(summary)["input_len"], 64);
  EXPECT_EQ(config_of(summary)["output_len"], 16);
  EXPECT_EQ(config_of(summary)["ignore_eos"], false);
  EXPECT_LE(summary["tokenbench"]["max_concurrency_observed"].get<int>(), 4);
}

// docs/tutorials/goodput.md: AIPerf's goodput SLOs become tokenbench's; without --streaming the
// requests are whole replies, as AIPerf sends them; --extra-inputs land in the body.
TEST(PeerCommands, AiperfGoodputNonStreamedAndExtraInputs) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("aiperf_goodput");
  auto r = peer(
      "profile",
      {"-m", "sim-model", "--endpoint-type", "chat", "--streaming", "--url", sim.url(),
       "--request-count", "8", "--goodput", "time_to_first_token:100 inter_token_latency:3.40"},
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("is --goodput ttft:100 tpot:3.40"), std::string::npos) << r.err;
  EXPECT_GT(read_json(dir + "/summary.json")["request_goodput"].get<double>(), 0);

  const std::string whole = make_temp_dir("aiperf_whole");
  r = peer("profile",
           {"-m", "sim-model", "--url", sim.url(), "--request-count", "4", "--output-tokens-mean",
            "8", "--extra-inputs", "ignore_eos:true", "--extra-inputs", "temperature:0.5"},
           whole);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no --streaming (AIPerf / GenAI-Perf) is --no-stream"), std::string::npos);
  const auto summary = read_json(whole + "/summary.json");
  EXPECT_EQ(config_of(summary)["stream"], false);
  EXPECT_EQ(config_of(summary)["ignore_eos"], true);  // ignore_eos:true keeps the length exact
  EXPECT_NE(slurp(whole + "/config.yaml").find("temperature"), std::string::npos);
  for (const auto& rec : read_records(whole + "/requests.jsonl")) {
    EXPECT_FALSE(rec["streamed"].get<bool>()) << rec.dump();
  }
}

// What AIPerf asks that tokenbench cannot honour ends the command with the reason, exit 1.
TEST(PeerCommands, AiperfRefusalsSayWhy) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-m", "m", "--endpoint-type", "generate"},
       "--endpoint-type generate (AIPerf / "
       "GenAI-Perf) is refused: tokenbench speaks"},
      {{"-m", "a,b"}, "one model per run here"},
      {{"-m", "m", "--fixed-schedule"}, "--fixed-schedule (AIPerf / GenAI-Perf) is refused"},
      {{"-m", "m", "--input-file", "/nonexistent/inputs.jsonl"}, "cannot be read"},
      {{"-m", "m", "--request-count", "5", "--benchmark-duration", "10"},
       "AIPerf refuses the two together"},
      {{"-m", "m", "--goodput", "output_token_throughput_per_user:600"}, "goodput here is"},
      {{"-m", "m", "--input-file", "x.jsonl", "--custom-dataset-type", "multi_turn"},
       "multi_turn files are not read here"},
  };
  for (const auto& [args, why] : cases) {
    const auto r = peer("profile", args, "");
    EXPECT_EQ(r.exit_code, 1) << args.back();
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // one line
  }
}

// AIPerf's own files (docs/tutorials/custom-dataset.md at db4f6397): a single_turn file's lines,
// each a "text", are the prompts; a mooncake_trace replays at its timestamps with
// --fixed-schedule. The type is told by the file's first line when not given.
TEST(PeerCommands, AiperfInputFiles) {
  LoggedSim server("aiperf_input_file");
  const std::string dir = make_temp_dir("aiperf_input_file_run");
  const std::string single = dir + ".single.jsonl";
  std::ofstream(single) << R"({"text": "one two three four"})"
                        << "\n"
                        << R"({"text": "five six seven eight nine ten"})"
                        << "\n";
  auto r = peer(
      "profile",
      {"-m", "sim-model", "--url", server.url(), "--endpoint-type", "completions", "--streaming",
       "--input-file", single, "--request-count", "4", "--output-tokens-mean", "4"},
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--input-file (single_turn) (AIPerf / GenAI-Perf) is --dataset jsonl"),
            std::string::npos)
      << r.err;
  auto saw = server.saw();
  ASSERT_EQ(saw.size(), 4u);
  EXPECT_EQ(saw[0]["prompt_tokens"], 4);  // the file's prompts, in order, cycled
  EXPECT_EQ(saw[1]["prompt_tokens"], 6);
  EXPECT_EQ(saw[2]["prompt_tokens"], 4);

  LoggedSim traced("aiperf_input_trace");
  const std::string trace = dir + ".trace.jsonl";
  std::ofstream(trace)
      << R"({"timestamp": 0, "input_length": 40, "output_length": 4, "hash_ids": [1]})"
      << "\n"
      << R"({"timestamp": 300, "input_length": 40, "output_length": 6, "hash_ids": [1]})"
      << "\n";
  r = peer("profile",
           {"-m", "sim-model", "--url", traced.url(), "--endpoint-type", "completions",
            "--streaming", "--input-file", trace, "--fixed-schedule", "--request-count", "2"},
           make_temp_dir("aiperf_input_trace_run"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--dataset mooncake --dataset-path " + trace + " --replay"),
            std::string::npos)
      << r.err;
  saw = traced.saw();
  ASSERT_EQ(saw.size(), 2u);
  EXPECT_EQ(saw[0]["max_tokens"], 4);
  EXPECT_EQ(saw[1]["max_tokens"], 6);
  EXPECT_GE(saw[1]["at_ms"].get<double>() - saw[0]["at_ms"].get<double>(), 250);  // 300 ms apart
}

// Without --artifact-dir AIPerf writes under ./artifacts/MODEL-openai-ENDPOINT-STIMULUS
// (aiperf/common/config/user_config.py at db4f6397): so does profile, in the directory it runs in.
TEST(PeerCommands, AiperfDefaultArtifactDirectory) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1", "--model", "org/sim-model"});
  const std::string cwd = make_temp_dir("aiperf_artifacts");
  const auto r = run_process(
      {"/bin/sh", "-c",
       "cd '" + cwd + "' && exec '" + std::string(TOKENBENCH_BINARY) +
           "' profile -m org/sim-model --url " + sim.url() +
           " --endpoint-type chat --streaming --request-count 3 --request-rate 20 --concurrency 2 "
           "--gpu-metrics off --no-preflight"},
      std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string dir =
      cwd + "/artifacts/org_sim-model-openai-chat-concurrency2-request_rate20.0";
  EXPECT_NE(r.err.find("(AIPerf's default)"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/profile_export_aiperf.json")) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/summary.json"));
}

// GuideLLM's benchmark with its rates as levels (a tokenbench sweep), its synthetic data, its
// warmup share and output path; its default sweep is refused with what to give instead.
TEST(PeerCommands, GuidellmConstantRatesAndSyntheticData) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string root = make_temp_dir("guidellm");
  const auto r = run_process({TOKENBENCH_BINARY,  "benchmark",
                              "--target",         sim.url(),
                              "--model",          "sim-model",
                              "--rate-type",      "constant",
                              "--rate",           "20,40",
                              "--max-requests",   "12",
                              "--data",           "prompt_tokens=32,output_tokens=8",
                              "--warmup-percent", "0.1",
                              "--output-path",    root + "/benchmarks.json",
                              "--gpu-metrics",    "off"},
                             std::chrono::seconds(90));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto sweep = read_json(root + "/sweep.json");
  ASSERT_EQ(sweep["levels"].size(), 2u);
  for (const auto& level : sweep["levels"]) {
    // 12 requests a level, the first 10 % of its measure phase left out (--drop-first).
    EXPECT_EQ(level["tokenbench"]["config"]["num_prompts"], 12);
    EXPECT_GE(level["completed"].get<int>(), 9);
    EXPECT_LE(level["completed"].get<int>(), 12);
    EXPECT_EQ(level["tokenbench"]["config"]["arrival"], "constant");
    EXPECT_EQ(level["tokenbench"]["config"]["input_len"], 32);
    EXPECT_EQ(level["tokenbench"]["config"]["output_len"], 8);
  }
  EXPECT_EQ(sweep["levels"][1]["request_rate"], 40);
  EXPECT_NE(r.err.find("--warmup-percent 0.1 (GuideLLM) is --drop-first 10"), std::string::npos);

  // GuideLLM's README quick start (vllm-project/guidellm v0.3.1 README.md: --rate-type sweep
  // --max-seconds 30 --data prompt_tokens=256,output_tokens=128), shortened to 1 s a level and 4
  // levels: one request at a time, every request at once, then 2 constant rates between.
  const std::string quick = make_temp_dir("guidellm_sweep");
  const auto swept = run_process(
      {TOKENBENCH_BINARY, "benchmark", "--target", sim.url(), "--rate-type", "sweep", "--rate", "4",
       "--max-seconds", "1", "--data", "prompt_tokens=256,output_tokens=128", "--output-path",
       quick, "--gpu-metrics", "off"},
      std::chrono::seconds(90));
  ASSERT_EQ(swept.exit_code, 0) << swept.err;
  EXPECT_NE(swept.err.find("is --rate-sweep 4 --max-concurrency 512 --arrival constant"),
            std::string::npos)
      << swept.err;
  const auto levels = read_json(quick + "/sweep.json")["levels"];
  ASSERT_EQ(levels.size(), 4u);
  // Ordered by throughput: synchronous first, every request at once last, the rates between.
  EXPECT_EQ(levels[0]["dir"], "c1-rinf");
  EXPECT_EQ(levels[3]["dir"], "c512-rinf");
  const double low = levels[0]["request_throughput"];
  const double high = levels[3]["request_throughput"];
  for (int i : {1, 2}) {
    const double rate = levels[i]["request_rate"];
    EXPECT_GT(rate, low);
    EXPECT_LE(rate, high * 1.01);
    EXPECT_EQ(levels[i]["tokenbench"]["config"]["arrival"], "constant");
    EXPECT_EQ(levels[i]["tokenbench"]["config"]["input_len"], 256);
  }
  const auto bad = run_process({TOKENBENCH_BINARY, "benchmark", "--target", sim.url(),
                                "--rate-type", "sweep", "--rate", "1"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("a sweep's --rate is its number of levels, 2 or more"), std::string::npos)
      << bad.err;
}

// More of the peers' documented commands (the research's corpus): each runs as the peer would
// send it, or is refused with its reason. Counts as given (aiperf docs/tutorial.md's 64 requests at
// 32/s), GuideLLM's 1000 requests cut to 20 for the test's time.
TEST(PeerCommands, DocumentedCommandsRunOrSayWhyNot) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string url = sim.url();
  // ai-dynamo/aiperf docs/tutorial.md: a Poisson rate of 32/s for 64 requests.
  std::string dir = make_temp_dir("aiperf_rate");
  auto r = peer("profile",
                {"--model", "sim-model", "--endpoint-type", "chat", "--endpoint",
                 "/v1/chat/completions", "--streaming", "--request-rate", "32", "--request-count",
                 "64", "--url", url.substr(7), "--output-tokens-mean", "8"},
                dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["completed"], 64);
  EXPECT_EQ(config_of(summary)["request_rate"], 32);
  // Poisson arrivals: tokenbench's gamma of burstiness 1.
  EXPECT_EQ(config_of(summary)["arrival"], "gamma");
  EXPECT_EQ(config_of(summary)["burstiness"], 1);
  // docs/tutorial.md's synthetic sessions and docs/tutorials/sequence-distributions.md's mixture
  // are refused with what to use here.
  r = peer("profile", {"--model", "m", "--url", url, "--conversation-num", "8"}, "");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("use tokenbench --multi-turn --turns N"), std::string::npos) << r.err;
  r = peer("profile",
           {"--model", "m", "--url", url, "--sequence-distribution",
            "64|10,32|8:70;256|40,128|20:20;1024|100,512|50:10"},
           "");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("lengths mix with --input-dist"), std::string::npos) << r.err;
  // vllm-project/guidellm v0.3.1 docs/datasets.md: throughput with JSON synthetic data;
  // docs/outputs.md's console switches beside a rate.
  dir = make_temp_dir("guidellm_throughput");
  r = peer("benchmark",
           {"--target", url, "--rate-type", "throughput", "--max-requests", "20", "--data",
            R"({"prompt_tokens": 256, "output_tokens": 128})", "--output-path", dir},
           "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["completed"], 20);
  EXPECT_EQ(config_of(summary)["max_concurrency"], 512);
  EXPECT_EQ(config_of(summary)["input_len"], 256);
  EXPECT_EQ(config_of(summary)["output_len"], 128);
  dir = make_temp_dir("guidellm_switches");
  r = peer("benchmark",
           {"--target", url, "--rate-type", "poisson", "--rate", "50", "--max-requests", "10",
            "--data", "prompt_tokens=64,output_tokens=8", "--disable-progress",
            "--display-scheduler-stats", "--output-path", dir + "/benchmarks.json"},
           "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(config_of(read_json(dir + "/summary.json"))["arrival"], "gamma");  // Poisson
  EXPECT_EQ(config_of(read_json(dir + "/summary.json"))["burstiness"], 1);
}

// `bench serve` is vLLM's run (its default backend: completions); `perf` EvalScope's.
TEST(PeerCommands, BenchServeAndPerfAreRun) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string vllm = make_temp_dir("bench_serve");
  auto r = peer("bench",
                {"serve", "--base-url", sim.url(), "--model", "sim-model", "--num-prompts", "4",
                 "--random-input-len", "16", "--random-output-len", "4"},
                vllm);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--backend vllm: vLLM's default backend"), std::string::npos) << r.err;
  EXPECT_EQ(config_of(read_json(vllm + "/summary.json"))["endpoint"], "/v1/completions");
  const std::string evalscope = make_temp_dir("perf");
  r = peer("perf",
           {"--url", sim.url() + "/v1/chat/completions", "--parallel", "2", "--number", "4",
            "--api", "openai", "--max-tokens", "4", "--model", "sim-model"},
           evalscope);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_json(evalscope + "/summary.json")["completed"], 4);
}

// LLMPerf's README command (ray-project/llmperf@f1d6bed4 README.md, "OpenAI Compatible APIs") on
// run: its server from $OPENAI_API_BASE, its key from $OPENAI_API_KEY (never written), its
// lengths as normals with max_tokens only, its count and concurrency.
TEST(PeerCommands, LlmperfFlagsOnRun) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("llmperf");
  const auto r =
      run_process({TOKENBENCH_BINARY,
                   "run",
                   "--model",
                   "sim-model",
                   "--mean-input-tokens",
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
                   dir,
                   "--llm-api",
                   "openai",
                   "--additional-sampling-params",
                   "{}",
                   "--gpu-metrics",
                   "off"},
                  std::chrono::seconds(60),
                  {{"OPENAI_API_BASE", sim.url() + "/v1"}, {"OPENAI_API_KEY", "secret_abcdefg"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--timeout 600 (LLMPerf) is --duration 600"), std::string::npos) << r.err;
  const auto summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["completed"], 2);
  EXPECT_EQ(config_of(summary)["max_concurrency"], 1);
  EXPECT_EQ(config_of(summary)["ignore_eos"], false);
  EXPECT_EQ(config_of(summary)["api"], "openai-chat");
  for (const char* file : {"/summary.json", "/config.yaml", "/requests.jsonl", "/report.html"}) {
    EXPECT_EQ(slurp(dir + file).find("secret_abcdefg"), std::string::npos) << file;
  }
  EXPECT_EQ(r.err.find("secret_abcdefg"), std::string::npos);
  // Without $OPENAI_API_BASE nor --base-url there is no server: one line says so.
  const auto none = run_process({TOKENBENCH_BINARY, "run", "--num-concurrent-requests", "1"},
                                std::chrono::seconds(30), {{"OPENAI_API_BASE", ""}});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("$OPENAI_API_BASE, which is not set"), std::string::npos) << none.err;
  const auto other = run_process({TOKENBENCH_BINARY, "run", "--llm-api", "litellm"});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("--llm-api litellm (LLMPerf) is refused"), std::string::npos);
}

// inference-perf's YAML (kubernetes-sigs/inference-perf@7de5ef2e, examples/vllm/
// config-random.yml, its server and rate changed) as run --config: the load stages as rates with
// their duration, the API, the server and the lengths; a key in the file is refused.
TEST(PeerCommands, InferencePerfConfigRuns) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("inference_perf");
  const std::string config = dir + "-config.yml";
  std::ofstream(config)
      << "load:\n  type: constant\n  stages:\n  - rate: 8\n    duration: 1\n"
         "  - rate: 16\n    duration: 1\napi:\n  type: completion\n"
         "server:\n  type: vllm\n  model_name: sim-model\n  base_url: "
      << sim.url()
      << "\n  ignore_eos: true\ndata:\n  type: random\n"
         "  input_distribution:\n    min: 10\n    max: 100\n    mean: 50\n"
         "    std_dev: 10\n  output_distribution:\n    type: fixed\n    mean: 8\n";
  const auto r = run_process(
      {TOKENBENCH_BINARY, "run", "--config", config, "--output-dir", dir, "--gpu-metrics", "off"},
      std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("inference-perf's load.stages' rates is --request-rate 8,16"),
            std::string::npos)
      << r.err;
  const auto levels = read_json(dir + "/sweep.json")["levels"];
  ASSERT_EQ(levels.size(), 2u);
  const auto& c = levels[1]["tokenbench"]["config"];
  EXPECT_EQ(levels[1]["request_rate"], 16);
  EXPECT_EQ(c["arrival"], "constant");
  EXPECT_EQ(c["duration_s"], 1);
  EXPECT_EQ(c["api"], "openai");
  EXPECT_EQ(c["stream"], false);  // inference-perf's api.streaming defaults to false
  EXPECT_EQ(c["ignore_eos"], true);
  EXPECT_EQ(c["output_len"], 8);
  std::ofstream(config) << "server:\n  base_url: http://x\n  api_key: sk-in-a-file\n";
  const auto key = run_process({TOKENBENCH_BINARY, "run", "--config", config});
  EXPECT_EQ(key.exit_code, 1);
  EXPECT_NE(key.err.find("server.api_key is refused: a secret in a file"), std::string::npos)
      << key.err;
  EXPECT_EQ(key.err.find("sk-in-a-file"), std::string::npos);
}

// `tokenbench profile --help` prints the table; docs/CLI.md holds what `peer-tables` prints.
TEST(PeerCommands, HelpAndTheDocsTablesComeFromTheRows) {
  const auto help = run_process({TOKENBENCH_BINARY, "profile", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--request-count, --num-requests"), std::string::npos) << help.out;
  const auto tables = run_process({TOKENBENCH_BINARY, "peer-tables"});
  ASSERT_EQ(tables.exit_code, 0);
  const std::string docs = slurp(std::string(TOKENBENCH_SOURCE_DIR) + "/docs/CLI.md");
  const std::string begin =
      "<!-- peer-tables: generated by `tokenbench peer-tables`; do not edit "
      "by hand -->\n";
  const auto from = docs.find(begin);
  const auto to = docs.find("<!-- peer-tables: end -->");
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  std::string generated = tables.out;
  while (!generated.empty() && generated.back() == '\n') generated.pop_back();
  EXPECT_EQ(docs.substr(from + begin.size(), to - from - begin.size()), generated + "\n")
      << "regenerate docs/CLI.md's block with `tokenbench peer-tables`";
}

}  // namespace
}  // namespace tokenbench::e2e
