// End to end: other tools' flag names as aliases, refused where they mean something else, and
// --config FILE (a run's own config.yaml repeats the run exactly).

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "capture_server.h"
#include "process.h"

namespace tokenbench::e2e {
namespace {

std::string config_of(const std::string& dir) {
  // config.yaml but the lines that differ between two runs of one configuration.
  std::string out;
  std::istringstream in(slurp(dir + "/config.yaml"));
  for (std::string line; std::getline(in, line);) {
    if (line.find("output_dir:") == std::string::npos &&
        line.find("started_at:") == std::string::npos) {
      out += line + "\n";
    }
  }
  return out;
}

// Per measured request id: its intended arrival relative to the first, and its prompt tokens.
std::vector<std::pair<std::int64_t, std::int64_t>> schedule_of(const std::string& dir) {
  std::vector<nlohmann::json> records;
  for (auto& r : read_records(dir + "/requests.jsonl")) {
    if (r["phase"] == "measure") records.push_back(std::move(r));
  }
  std::sort(records.begin(), records.end(),
            [](const auto& a, const auto& b) { return a["id"] < b["id"]; });
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const auto& r : records) {
    out.emplace_back(
        r["intended_ns"].get<std::int64_t>() - records.front()["intended_ns"].get<std::int64_t>(),
        r["prompt_tokens"].get<std::int64_t>());
  }
  return out;
}

TEST(EndToEndAliases, VllmFlagsMeanTheirTokenbenchTwins) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  const std::string port = sim.url().substr(sim.url().rfind(':') + 1);
  const std::string dir = make_temp_dir("aliases_vllm");
  const auto r = run_process({TOKENBENCH_BINARY,
                              "run",
                              "--host",
                              "127.0.0.1",
                              "--port",
                              port,
                              "--backend",
                              "vllm",
                              "--dataset-name",
                              "random",
                              "--random-input-len",
                              "48",
                              "--random-output-len",
                              "6",
                              "--random-range-ratio",
                              "0",
                              "--num-prompts",
                              "5",
                              "--result-dir",
                              dir,
                              "--save-result",
                              "--result-filename",
                              "vllm-5.json",
                              "--disable-tqdm",
                              "--metric-percentiles",
                              "50,99",
                              "--server-metrics",
                              "off",
                              "--gpu-metrics",
                              "off"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: --random-input-len (vLLM) is --input-len"), std::string::npos)
      << r.err;
  // vLLM's result file (--save-result is --export vllm), under the name its scripts look for:
  // summary.json's figures with --save-detailed's arrays.
  const auto vllm = read_json(dir + "/vllm-5.json");
  EXPECT_EQ(vllm["completed"], 5);
  EXPECT_EQ(vllm["p99_ttft_ms"], read_json(dir + "/summary.json")["p99_ttft_ms"]);
  EXPECT_EQ(vllm["ttfts"].size(), 5u);
  const std::string config = slurp(dir + "/config.yaml");
  EXPECT_NE(config.find("base_url: " + sim.url()), std::string::npos) << config;
  EXPECT_NE(config.find("endpoint: /v1/completions"), std::string::npos) << config;
  EXPECT_NE(config.find("input_len: 48"), std::string::npos) << config;
  EXPECT_NE(config.find("output_len: 6"), std::string::npos) << config;
  EXPECT_NE(config.find("percentiles: [50, 99]"), std::string::npos) << config;
  EXPECT_EQ(read_json(dir + "/summary.json")["completed"], 5);
}

TEST(EndToEndAliases, EvalScopeFlagsMeanTheirTokenbenchTwins) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("aliases_evalscope");
  const auto r = run_process({TOKENBENCH_BINARY,
                              "run",
                              "--url",
                              sim.url() + "/v1/chat/completions",
                              "--parallel",
                              "2",
                              "--number",
                              "6",
                              "--min-prompt-length",
                              "40",
                              "--max-prompt-length",
                              "40",
                              "--max-tokens",
                              "5",
                              "--output-dir",
                              dir,
                              "--quiet",
                              "--server-metrics",
                              "off",
                              "--gpu-metrics",
                              "off"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string config = slurp(dir + "/config.yaml");
  EXPECT_NE(config.find("max_concurrency: 2"), std::string::npos) << config;
  EXPECT_NE(config.find("num_prompts: 6"), std::string::npos) << config;
  EXPECT_NE(config.find("input_len: 40"), std::string::npos) << config;
  EXPECT_NE(config.find("output_len: 5"), std::string::npos) << config;
  // EvalScope's --max-tokens alone lets the model stop early: no ignore_eos.
  EXPECT_NE(config.find("ignore_eos: false"), std::string::npos) << config;
}

TEST(EndToEndAliases, PeersLengthSpreadsBecomeDistributions) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.2"});
  const std::string genai = make_temp_dir("aliases_genai_dist");
  auto r = run_process(
      run_args(sim.url(), genai,
               {"--synthetic-input-tokens-mean", "30", "--synthetic-input-tokens-stddev", "5",
                "--output-tokens-mean", "6", "--output-tokens-stddev", "1", "--num-prompts", "4",
                "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--synthetic-input-tokens-stddev (GenAI-Perf) is --input-dist normal:30,5"),
            std::string::npos)
      << r.err;
  std::string config = slurp(genai + "/config.yaml");
  EXPECT_NE(config.find("input_dist: normal:30,5"), std::string::npos) << config;
  EXPECT_NE(config.find("output_dist: normal:6,1"), std::string::npos) << config;
  const std::string evalscope = make_temp_dir("aliases_evalscope_dist");
  r = run_process(
      run_args(sim.url(), evalscope,
               {"--min-prompt-length", "10", "--max-prompt-length", "20", "--num-prompts", "4",
                "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  config = slurp(evalscope + "/config.yaml");
  EXPECT_NE(config.find("input_dist: uniform:10,20"), std::string::npos) << config;
}

TEST(EndToEndAliases, AliasesThatMeanSomethingElseAreRefused) {
  for (const auto& [args, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--backend", "tgi"}, "--backend tgi (vLLM) is not an OpenAI-compatible API"},
           {{"--number", "10", "20"}, "pairs one count with each --parallel (or --rate) level"},
           {{"--min-tokens", "10", "--max-tokens", "100"}, "must be equal here"},
           {{"--output-tokens-stddev", "30"}, "needs --output-tokens-mean"},
           {{"--result-filename", "a/x.json"}, "give a file name; the directory is --output-dir"},
           {{"--result-filename", "summary.json"}, "tokenbench writes that file itself"},
           {{"--host", "h", "--base-url", "http://h:1"}, "either --base-url or --host/--port"},
           {{"--backend", "vllm", "--base-url", "http://127.0.0.1:9/v1/chat/completions"},
            "--backend vllm (vLLM) sends to /v1/completions, but the URL names "
            "/v1/chat/completions: leave out --backend"},
           {{"--max-prompt-length", "30", "--dataset", "sharegpt"},
            "tokenbench does not filter --dataset sharegpt"},
           {{"--min-tokens", "10"}, "--min-tokens alone (EvalScope) asks for at least"},
           {{"--rate", "0"}, "--rate 0 (EvalScope) must be a number of requests per second > 0"},
           {{"--api", "dashscope"}, "--api dashscope (EvalScope) is not supported"},
           {{"--api-key", "k", "--api-key-env", "X"}, "give either --api-key (EvalScope) or"},
           {{"--temperature", "hot"}, "--temperature 'hot' must be a number >= 0"},
           {{"--top-p", "1.5"}, "--top-p '1.5' must be a number in (0, 1]"},
           {{"--top-k", "2.5"}, "--top-k '2.5' must be a whole number"},
           {{"--top-k", "20", "--api", "openai-responses"}, "the Responses API has no top_k"},
           {{"--temperature", "0.5", "--api", "openai-embeddings"},
            "--temperature is a sampling parameter"},
           {{"--temperature", "0.5", "--extra-body", R"({"temperature":0})"},
            R"(--temperature 0.5 and --extra-body's "temperature": 0 disagree)"}}) {
    std::vector<std::string> cmd{TOKENBENCH_BINARY, "run"};
    cmd.insert(cmd.end(), args.begin(), args.end());
    const auto r = run_process(cmd);
    EXPECT_EQ(r.exit_code, 1) << args.front();
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;  // one line
  }
}

TEST(EndToEndConfig, ARunsOwnConfigRepeatsItAndFlagsBesideItWin) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  const std::string first = make_temp_dir("config_first");
  auto r = run_process(run_args(sim.url(), first, {"--num-prompts",    "12",
                                                   "--request-rate",   "200",
                                                   "--seed",           "7",
                                                   "--input-len",      "32",
                                                   "--range-ratio",    "0.5",
                                                   "--output-len",     "4",
                                                   "--label",          "weights=rev-a",
                                                   "--export",         "csv",
                                                   "--buckets",        "input:0,32",
                                                   "--server-metrics", "off",
                                                   "--gpu-metrics",    "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string again = make_temp_dir("config_again");
  r = run_process({TOKENBENCH_BINARY, "run", "--config", first + "/config.yaml", "--output-dir",
                   again, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(config_of(again), config_of(first));
  // The same prompts' lengths on the same schedule.
  EXPECT_EQ(schedule_of(again), schedule_of(first));
  // Exports and length buckets come back with it.
  EXPECT_TRUE(std::filesystem::exists(again + "/requests.csv"));
  EXPECT_EQ(read_json(again + "/summary.json")["tokenbench"]["buckets"][0]["buckets"].size(), 2u);

  // A flag beside the file replaces the file's value.
  const std::string changed = make_temp_dir("config_changed");
  r = run_process({TOKENBENCH_BINARY, "run", "--config", first + "/config.yaml", "--output-dir",
                   changed, "--quiet", "--num-prompts", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_json(changed + "/summary.json")["completed"], 3);

  // A config.yaml written before --abort-on-error-rate replays as it ran: its max_error_rate
  // was the in-run stop, and the run's verdict keeps its default.
  const std::string legacy = make_temp_dir("config_legacy");
  {
    std::string text = slurp(first + "/config.yaml");
    const std::string abort_line = "  abort_on_error_rate: 0\n";
    ASSERT_NE(text.find(abort_line), std::string::npos) << text;
    text.erase(text.find(abort_line), abort_line.size());
    text.replace(text.find("max_error_rate: 0.5"), std::string("max_error_rate: 0.5").size(),
                 "max_error_rate: 0");
    std::ofstream(legacy + "/config.yaml") << text;
  }
  r = run_process({TOKENBENCH_BINARY, "run", "--config", legacy + "/config.yaml", "--output-dir",
                   legacy + "/out", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string replayed = slurp(legacy + "/out/config.yaml");
  EXPECT_NE(replayed.find("max_error_rate: 0.5"), std::string::npos) << replayed;
  EXPECT_NE(replayed.find("abort_on_error_rate: 0\n"), std::string::npos) << replayed;

  // A flat file of flag names works too; an unknown key is one line naming it.
  const std::string flat = make_temp_dir("config_flat");
  {
    std::ofstream f(flat + "/settings.yaml");
    f << "base-url: " << sim.url() << "\nnum_prompts: 4\noutput-len: 3\nno-stream: true\n"
      << "server-metrics: \"off\"\ngpu-metrics: \"off\"\nquiet: true\nlabel: [a=1, b=2]\n";
  }
  r = run_process({TOKENBENCH_BINARY, "run", "--config", flat + "/settings.yaml", "--output-dir",
                   flat + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string config = slurp(flat + "/out/config.yaml");
  EXPECT_NE(config.find("stream: false"), std::string::npos) << config;
  EXPECT_NE(config.find("labels: [a=1, b=2]"), std::string::npos) << config;
  EXPECT_EQ(read_json(flat + "/out/summary.json")["completed"], 4);
  {
    std::ofstream f(flat + "/bad.yaml");
    f << "num-prompts: 4\nnum-promts: 5\n";
  }
  r = run_process({TOKENBENCH_BINARY, "run", "--config", flat + "/bad.yaml"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unknown setting 'num-promts'"), std::string::npos) << r.err;
}

TEST(EndToEndAliases, UnknownFlagsSayWhatTheyAreInOneLine) {
  for (const auto& [args, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"run", "--max-concurency", "8"},
            "run: unknown flag --max-concurency: did you mean --max-concurrency? (tokenbench run "
            "--help lists its flags)"},
           {{"search", "--num-promts=8"},
            "search: unknown flag --num-promts: did you mean "
            "--num-prompts?"},
           {{"run", "--zzz-nothing-like-it"},
            "run: unknown flag --zzz-nothing-like-it (tokenbench"},
           {{"report", "dir", "--format", "csv"}, "report: unknown flag --format"},
           {{"run", "--append-result"},
            "--append-result (vLLM) is not supported: every run writes its own results"},
           {{"run", "--serve-params", "params.json"},
            "--serve-params (vLLM bench sweep) is --serve-param NAME=V1,V2 per parameter"},
           // run translates LLMPerf's flags (peer_commands_test.cpp); search says what they are.
           {{"search", "--num-concurrent-requests", "4"},
            "--num-concurrent-requests (LLMPerf) is --max-concurrency N"},
           {{"run", "--rate-type", "constant", "--rate", "4"},
            "--rate-type (GuideLLM) is: synchronous --max-concurrency 1;"},
           {{"run", "--query-template", "{}"},
            "--query-template (EvalScope) is not supported: --extra-body JSON"},
           {{"run", "--logprobs", "1"},
            "--logprobs (vLLM, EvalScope) has no tokenbench flag: send the request field with "
            "--extra-body JSON"},
           {{"run", "--endpoint-type", "chat"}, "--endpoint-type (GenAI-Perf) is --endpoint PATH"},
           {{"rn", "--num-prompts", "3"}, "unknown command 'rn': did you mean run?"}}) {
    std::vector<std::string> cmd{TOKENBENCH_BINARY};
    cmd.insert(cmd.end(), args.begin(), args.end());
    const auto r = run_process(cmd);
    EXPECT_EQ(r.exit_code, 1) << args[1];
    EXPECT_EQ(r.err.rfind("tokenbench: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("were not expected"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;  // one line
  }
  // The value after an unknown flag is never repeated: it may be a credential.
  const auto r = run_process({TOKENBENCH_BINARY, "run", "--wandb-api-key", "sk-do-not-echo"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--wandb-api-key (EvalScope) is not supported"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("sk-do-not-echo"), std::string::npos) << r.err;
}

TEST(EndToEndAliases, VllmWarmupsAndSamplingParametersReachTheServer) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.5"});
  const std::string dir = make_temp_dir("aliases_vllm_sampling");
  auto r = run_process(run_args(
      sim.url(), dir,
      {"--num-prompts", "4", "--num-warmups", "2", "--output-len", "3", "--temperature", "0.6",
       "--top-p", "0.9", "--top-k", "20", "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: --num-warmups (vLLM) is --warmup"), std::string::npos) << r.err;
  std::size_t warm = 0;
  for (const auto& rec : read_records(dir + "/requests.jsonl")) warm += rec["phase"] == "warmup";
  EXPECT_EQ(warm, 2u);
  // Recorded in config.yaml, so that --config sends them again.
  const nlohmann::json extra = nlohmann::json::parse(
      YAML::Load(slurp(dir + "/config.yaml"))["target"]["extra_body"].as<std::string>());
  EXPECT_EQ(extra, (nlohmann::json{{"temperature", 0.6}, {"top_p", 0.9}, {"top_k", 20}}));

  // What the server receives: the fields in every request body.
  CaptureServer server;
  r = run_process(
      run_args(server.url(), make_temp_dir("aliases_capture"),
               {"--num-prompts", "1", "--output-len", "3", "--temperature", "0.6", "--top-p", "0.9",
                "--top-k", "20", "--server-metrics", "off", "--gpu-metrics", "off"}));
  EXPECT_EQ(r.exit_code, 2) << r.err;  // the capture server answers 400
  const auto posts = server.requests_to("POST /v1/chat/completions ");
  ASSERT_EQ(posts.size(), 1u);
  const auto body = nlohmann::json::parse(posts[0].substr(posts[0].find("\r\n\r\n") + 4));
  EXPECT_EQ(body["temperature"], 0.6);
  EXPECT_EQ(body["top_p"], 0.9);
  EXPECT_EQ(body["top_k"], 20);
}

TEST(EndToEndAliases, EvalScopePasteMeasuresTheUrlsApiAndKeepsTheKeySecret) {
  const std::string key = "sk-evalscope-4242";
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.5", "--api-key", key});
  const std::string dir = make_temp_dir("aliases_evalscope_paste");
  const auto r = run_process({TOKENBENCH_BINARY,
                              "run",
                              "--url",
                              sim.url() + "/v1/chat/completions",
                              "--api",
                              "openai",
                              "--api-key",
                              key,
                              "--stream",
                              "--rate",
                              "-1",
                              "--parallel",
                              "2",
                              "--number",
                              "6",
                              "--max-prompt-length",
                              "30",
                              "--max-tokens",
                              "4",
                              "--outputs-dir",
                              dir,
                              "--extra-args",
                              R"({"ignore_eos":true})",
                              "--server-metrics",
                              "off",
                              "--gpu-metrics",
                              "off"},
                             std::chrono::seconds(60), {{"OPENAI_API_KEY", ""}});
  ASSERT_EQ(r.exit_code, 0) << r.err;  // the server took the key
  // The URL's API is measured: chat, not legacy completions.
  EXPECT_NE(r.err.find(sim.url() + "/v1/chat/completions model sim-model"), std::string::npos)
      << r.err;
  const YAML::Node config = YAML::Load(slurp(dir + "/config.yaml"));
  EXPECT_EQ(config["target"]["endpoint"].as<std::string>(), "/v1/chat/completions");
  EXPECT_EQ(config["target"]["api"].as<std::string>(), "openai-chat");
  EXPECT_EQ(read_json(dir + "/summary.json")["backend"], "openai-chat");
  EXPECT_EQ(config["workload"]["input_dist"].as<std::string>(), "uniform:1,30");
  EXPECT_EQ(nlohmann::json::parse(config["target"]["extra_body"].as<std::string>()),
            (nlohmann::json{{"ignore_eos", true}}));
  EXPECT_EQ(read_json(dir + "/summary.json")["completed"], 6);
  // The key is in no output: console, files, the environment record's command line.
  EXPECT_EQ(r.out.find(key), std::string::npos);
  EXPECT_EQ(r.err.find(key), std::string::npos) << r.err;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(slurp(f.path().string()).find(key), std::string::npos) << f.path();
  }
  const std::string command = read_json(dir + "/environment.json")["command_line"].dump();
  EXPECT_NE(command.find("--api-key\",\"<redacted>"), std::string::npos) << command;

  // tokenbench's own --api openai (legacy completions) against a chat URL is a contradiction.
  const auto own = run_process({TOKENBENCH_BINARY, "run", "--base-url",
                                sim.url() + "/v1/chat/completions", "--api", "openai"});
  EXPECT_EQ(own.exit_code, 1);
  EXPECT_NE(own.err.find("error: --api openai does not fit the endpoint /v1/chat/completions "
                         "that the URL names"),
            std::string::npos)
      << own.err;
}

TEST(EndToEndAliases, VllmSaveDetailedKeepsEachRequestsTextsAndReportStillReads) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.5"});
  const std::string dir = make_temp_dir("aliases_save_detailed");
  auto r = run_process(
      run_args(sim.url(), dir,
               {"--save-detailed", "--num-prompts", "3", "--warmup", "1", "--input-len", "32",
                "--output-len", "5", "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: --save-detailed writes each request's prompt and generated text "
                       "into requests.jsonl (each cut at 64 KiB, none after 256 MiB of text)"),
            std::string::npos)
      << r.err;
  const auto records = read_records(dir + "/requests.jsonl");
  ASSERT_EQ(records.size(), 4u);
  for (const auto& rec : records) {
    ASSERT_TRUE(rec.contains("prompt_text")) << rec.dump();
    ASSERT_TRUE(rec.contains("output_text")) << rec.dump();
    EXPECT_GT(rec["prompt_text"].get<std::string>().size(), 32u);  // 32 tokens of words
    // serve-sim's words, as many bytes as the record counted.
    EXPECT_EQ(rec["output_text"].get<std::string>().size(), rec["output_chars"].get<std::size_t>());
    EXPECT_FALSE(rec.contains("text_truncated"));
  }
  EXPECT_EQ(YAML::Load(slurp(dir + "/config.yaml"))["save_detailed"].as<bool>(), true);
  const nlohmann::json before = read_json(dir + "/summary.json");
  r = run_process({TOKENBENCH_BINARY, "report", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json after = read_json(dir + "/summary.json");
  EXPECT_EQ(after["completed"], 3);
  EXPECT_EQ(after["mean_ttft_ms"], before["mean_ttft_ms"]);

  // Without the flag, no text is written.
  const std::string plain = make_temp_dir("aliases_not_detailed");
  r = run_process(run_args(sim.url(), plain,
                           {"--num-prompts", "2", "--output-len", "5", "--server-metrics", "off",
                            "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& rec : read_records(plain + "/requests.jsonl")) {
    EXPECT_FALSE(rec.contains("prompt_text"));
    EXPECT_FALSE(rec.contains("output_text"));
  }
}

}  // namespace
}  // namespace tokenbench::e2e
