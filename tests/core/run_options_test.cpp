#include "tokenbench/core/run_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "tokenbench/core/config_check.h"
#include "tokenbench/core/overload.h"

namespace tokenbench::core {
namespace {

// A value other than the default in every option of the table.
RunConfig every_option_changed() {
  RunConfig c;
  for (const auto& row : run_options()) {
    std::visit(Overload{
                   [&](std::string RunConfig::*m) { c.*m = "x-" + std::string(row.key); },
                   [&](bool RunConfig::*m) { c.*m = !(c.*m); },
                   [&](int RunConfig::*m) { c.*m += 3; },
                   [&](std::int64_t RunConfig::*m) { c.*m += 3; },
                   [&](std::uint64_t RunConfig::*m) { c.*m += 3; },
                   [&](double RunConfig::*m) { c.*m = std::isinf(c.*m) ? 2.5 : c.*m + 0.5; },
                   [&](std::vector<std::string> RunConfig::*m) {
                     c.*m = {"a", "b"};
                   },
                   [&](std::vector<double> RunConfig::*m) {
                     c.*m = {12.5, 80};
                   },
                   [&](std::vector<TargetSpec> RunConfig::*m) {
                     c.*m = {{"a", "http://h:1", "m1", "E"}, {"b", "", "m2", ""}};
                   },
                   [&](const TextField& e) { ASSERT_TRUE(e.set(c, e.choices().back())); },
               },
               row.field);
  }
  c.extra_body = R"({"t":1})";         // a JSON object, as the CLI checks
  c.dataset = Dataset::kSharedPrefix;  // writes its prefix_* and group_order
  return c;
}

bool same_option(const RunOption& row, const RunConfig& a, const RunConfig& b) {
  return std::visit(Overload{
                        [&](const TextField& e) { return e.get(a) == e.get(b); },
                        [&](std::vector<TargetSpec> RunConfig::*m) {
                          if ((a.*m).size() != (b.*m).size()) return false;
                          for (std::size_t i = 0; i < (a.*m).size(); ++i) {
                            const auto &x = (a.*m)[i], &y = (b.*m)[i];
                            if (x.name != y.name || x.base_url != y.base_url ||
                                x.model != y.model || x.api_key_env != y.api_key_env) {
                              return false;
                            }
                          }
                          return true;
                        },
                        [&](auto m) { return a.*m == b.*m; },
                    },
                    row.field);
}

TEST(RunOptions, EveryOptionRoundTripsThroughConfigYaml) {
  const RunConfig c = every_option_changed();
  const RunConfig d;
  const RunConfig r = run_config_from_yaml(to_yaml(c));
  for (const auto& row : run_options()) {
    if (row.key == "dataset" || row.key == "sonnet_prefix_len") continue;  // below
    EXPECT_FALSE(same_option(row, c, d)) << row.key << " was not changed";
    EXPECT_TRUE(same_option(row, c, r)) << row.key << " did not survive config.yaml";
  }
  RunConfig sonnet;
  sonnet.dataset = Dataset::kSonnet;
  sonnet.sonnet_prefix_len = 17;
  EXPECT_EQ(run_config_from_yaml(to_yaml(sonnet)).sonnet_prefix_len, 17);
  EXPECT_EQ(run_config_from_yaml(to_yaml(sonnet)).dataset, Dataset::kSonnet);
}

// --dataset is parsed once, at the edge: config.yaml's unknown name is refused there, naming it.
TEST(RunOptions, AnUnknownDatasetInConfigYamlIsRefusedWithTheNames) {
  try {
    run_config_from_yaml("workload:\n  dataset: nope\n");
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "config.yaml: workload.dataset 'nope' is not known: use random, fixed, "
        "shared-prefix, jsonl, lines, csv, sharegpt, sonnet, burstgpt, azure, mooncake or jobs");
  }
}

TEST(RunOptions, EveryKeyOfConfigYamlIsARowAndEveryRowHasItsOwnKey) {
  const std::string yaml = to_yaml(every_option_changed());
  std::set<std::string> keys;
  for (const auto& row : run_options()) {
    EXPECT_TRUE(keys.insert(option_path(row)).second) << option_path(row) << " twice";
    if (row.key == "sonnet_prefix_len") continue;
    EXPECT_NE(yaml.find(std::string(row.key) + ":"), std::string::npos) << row.key;
  }
}

TEST(RunOptions, TheDefaultConfigYamlIsWhatItWasBeforeTheTable) {
  // config.yaml of a default RunConfig as core::to_yaml wrote it by hand, before issue 26.
  const std::string before =
      "target:\n"
      "  base_url: http://127.0.0.1:8000\n"
      "  endpoint: /v1/chat/completions\n"
      "  api: openai-chat\n"
      "  model: \"\"\n"
      "  headers:\n"
      "    []\n"
      "  extra_body: \"\"\n"
      "  max_tokens_field: max_tokens\n"
      "  batch_size: 1\n"
      "  timeout_s: 600\n"
      "  connect_timeout_s: 30\n"
      "  connection_mode: keep-alive\n"
      "  stamps: auto\n"
      "  transport: auto\n"
      "  http2: false\n"
      "  http2_streams: 100\n"
      "  ca_file: \"\"\n"
      "  insecure: false\n"
      "  ttft_timeout_s: 0\n"
      "  stall_timeout_s: 0\n"
      "  max_event_bytes: 4194304\n"
      "  max_reply_bytes: 0\n"
      "  retries: 0\n"
      "  preflight: true\n"
      "  api_key_env: OPENAI_API_KEY\n"
      "  stream: true\n"
      "  request_id: true\n"
      "  nonstream_sample: 0\n"
      "load:\n"
      "  max_concurrency: 0\n"
      "  request_rate: .inf\n"
      "  burstiness: 1\n"
      "  arrival: gamma\n"
      "  num_prompts: 0\n"
      "  duration_s: 0\n"
      "  warmup: 0\n"
      "  seed: 0\n"
      "  workers: 0\n"
      "  ramp_up: none\n"
      "  ramp_up_start_rps: 1\n"
      "  ramp_up_duration_s: 0\n"
      "  drop_first_pct: 0\n"
      "  fail_fast: 5\n"
      "  server_metrics: auto\n"
      "  metrics_interval_s: 1\n"
      "  gpu_metrics: auto\n"
      "  max_error_rate: 0.5\n"
      "  abort_on_error_rate: 0\n"
      "workload:\n"
      "  dataset: random\n"
      "  dataset_path: \"\"\n"
      "  input_len: 1024\n"
      "  output_len: 128\n"
      "  output_len_from_dataset: true\n"
      "  range_ratio: 0\n"
      "  random_prefix_len: 0\n"
      "  ignore_eos: true\n"
      "  tokenizer: \"\"\n"
      "  tiktoken_encoding: \"\"\n"
      "metrics:\n"
      "  percentiles: [50, 90, 95, 99]\n"
      "  goodput: []\n"
      "  slo: []\n"
      "  console_style: ms\n"
      "  sim_time_scale: 1\n"
      "  sim_time: false\n"
      "  buckets: []\n"
      "labels: []\n"
      "output_dir: \"\"\n"
      "exports: []\n"
      "records_compress: none\n"
      "started_at: \"\"\n";
  EXPECT_EQ(to_yaml(RunConfig{}), before);
}

TEST(RunOptions, FlagsAndRowsFindEachOther) {
  const RunOption* stall = find_option_by_flag("--stall-timeout");
  ASSERT_NE(stall, nullptr);
  EXPECT_EQ(option_path(*stall), "target.stall_timeout_s");
  EXPECT_EQ(find_option_by_key("stall_timeout_s"), stall);
  EXPECT_EQ(find_option_by_flag("--no-such-flag"), nullptr);
  for (const auto& row : run_options()) {
    if (row.cli == OptionCli::kNone) continue;
    EXPECT_EQ(row.flag.rfind("--", 0), 0u) << row.key;
    EXPECT_FALSE(row.help.empty()) << row.flag;
  }
}

TEST(RunOptions, TheIdentityIsWhatCompareAndResumeCheckedBefore) {
  const std::vector<std::string> compare_skips{
      "output_dir", "result_filename", "exports", "records_compress", "started_at", "labels",
      "metrics.percentiles", "metrics.slo", "metrics.console_style", "metrics.buckets",
      "metrics.steady_state",
      // the cost figures (a price) and --profile (a trace): not the workload
      "metrics.gpu_hour_price", "metrics.gpus", "target.profile", "load.server_metrics",
      "load.server_metrics_auth", "load.stop_on_saturation", "load.metrics_interval_s",
      "load.gpu_metrics", "load.fail_fast", "load.max_error_rate", "target.api_key_env",
      "target.preflight", "workload.max_line_bytes",
      // where the figures are sent (--otlp-endpoint), not what was measured
      "otlp_endpoint", "otlp_headers"};
  auto got = not_compared_paths();
  auto want = compare_skips;
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);

  RunConfig kept, now;
  now.started_at = "t";
  now.output_dir = "o";
  now.percentiles = {50};
  now.goodput = {"ttft:1"};
  now.slo = {"x<1"};
  now.console_style = ConsoleStyle::kCompact;
  now.sim_time = true;
  now.fail_fast = 0;
  now.exports = {"csv"};
  now.otlp_endpoint = "http://collector:4318";
  now.otlp_headers = {"x-tenant=a"};
  carry_unresumed(kept, now);
  EXPECT_EQ(to_yaml(kept), to_yaml(now));
  now.seed = 9;
  carry_unresumed(kept, now);
  EXPECT_NE(to_yaml(kept), to_yaml(now));  // the seed is part of what --resume checks
}

TEST(RunOptions, TheRangesOfTheTableAreCheckedWithTheirMessages) {
  RunConfig c;
  c.num_prompts = 10;
  c.stall_timeout_s = 1e-4;
  try {
    validate(c);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "--stall-timeout 0.0001 is out of range: give 0.001 to 1000000 seconds (0: none)");
  }
  c = RunConfig{};
  c.num_prompts = 10;
  c.retries = 101;
  EXPECT_THROW(validate(c), ConfigError);
  c = RunConfig{};
  c.num_prompts = 10;
  c.workers = -1;
  try {
    validate(c);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "--workers -1 is out of range: give 0 to 1024 (0: one per core)");
  }
}

TEST(RunOptions, EnumsAreReadByTheirNamesAndAnUnknownOneIsNamed) {
  EXPECT_EQ(run_config_from_yaml("target: {transport: curl}\n").transport, TransportMode::kCurl);
  EXPECT_EQ(run_config_from_yaml("target: {stamps: user}\n").stamps, StampsMode::kUser);
  try {
    run_config_from_yaml("target: {transport: carrier-pigeon}\n");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "config.yaml: target.transport 'carrier-pigeon' is not known: use auto or curl");
  }
  // Older enums stay lenient, as before: an unknown balance is round-robin.
  EXPECT_EQ(run_config_from_yaml("target: {balance: weird}\n").balance, BalanceKind::kRoundRobin);
  EXPECT_EQ(to_string(ApiKind::kOpenAICompletions), "openai");
  EXPECT_EQ(api_kind_from_string("messages"), ApiKind::kAnthropicMessages);
  EXPECT_EQ(to_string(RampKind::kExponential), "exponential");
}

TEST(RunOptions, LoraModulesRoundTripAndAreLeftOutWithoutThem) {
  RunConfig c;
  EXPECT_EQ(to_yaml(c).find("lora"), std::string::npos);
  c.lora_modules = {"sql-lora", "chat-lora"};
  c.lora_assignment = LoraAssignment::kRandom;
  const std::string yaml = to_yaml(c);
  EXPECT_NE(yaml.find("  lora_modules: [sql-lora, chat-lora]\n  lora_assignment: random\n"),
            std::string::npos)
      << yaml;
  const RunConfig r = run_config_from_yaml(yaml);
  EXPECT_EQ(r.lora_modules, c.lora_modules);
  EXPECT_EQ(r.lora_assignment, LoraAssignment::kRandom);
  ASSERT_NE(find_option_by_key("lora_modules"), nullptr);
  EXPECT_EQ(find_option_by_key("lora_modules")->rule, ConfigRule::kJoin);  // --lora-modules a,b
}

TEST(RunOptions, LoraModulesAreCheckedAgainstWhatTheyCannotCombineWith) {
  RunConfig c;
  c.num_prompts = 10;
  c.lora_assignment = LoraAssignment::kRandom;
  EXPECT_THROW(validate_run(c), ConfigError);  // --lora-assignment without --lora-modules
  c.lora_modules = {"a", ""};
  EXPECT_THROW(validate_run(c), ConfigError);
  c.lora_modules = {"a", "b"};
  EXPECT_NO_THROW(validate_run(c));
  c.targets = {{"x", "", "m", ""}, {"y", "", "n", ""}};
  EXPECT_THROW(validate_run(c), ConfigError);
}

}  // namespace
}  // namespace tokenbench::core
