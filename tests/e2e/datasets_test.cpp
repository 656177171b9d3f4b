// End to end: named datasets from tests/data/workloads against serve-sim, whose usage counts
// words as the client does without a tokenizer, so every length is exact.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

std::string sample(const std::string& name) {
  return std::string(TOKENBENCH_TEST_DATA_DIR) + "/workloads/" + name;
}

// (prompt tokens, output tokens) of the measured requests, in id order.
std::vector<std::pair<std::int64_t, std::int64_t>> lengths(const std::string& dir) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  auto lines = read_records(dir + "/requests.jsonl");
  std::sort(lines.begin(), lines.end(),
            [](const json& a, const json& b) { return a["id"] < b["id"]; });
  for (const auto& r : lines) {
    if (r["phase"] != "measure") continue;
    EXPECT_EQ(r["error"], "none") << r.dump();
    out.emplace_back(r["prompt_tokens"].get<std::int64_t>(),
                     r["output_tokens"].get<std::int64_t>());
  }
  return out;
}

using Lengths = std::vector<std::pair<std::int64_t, std::int64_t>>;

TEST(EndToEndDatasets, ShareGptRepliesSetOutputLengthsAndConfigRepeatsThem) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.2"});
  const std::string dir = make_temp_dir("ds-sharegpt");
  auto r = run_process(
      run_args(sim.url(), dir,
               {"--dataset", "sharegpt", "--dataset-path", sample("sharegpt.json"), "--num-prompts",
                "2", "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lengths(dir), (Lengths{{12, 15}, {7, 7}}));
  // The run's own config.yaml repeats it: the replies' lengths, not --output-len's default.
  const std::string again = make_temp_dir("ds-sharegpt-again");
  r = run_process({TOKENBENCH_BINARY, "run", "--config", dir + "/config.yaml", "--output-dir",
                   again, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lengths(again), (Lengths{{12, 15}, {7, 7}}));
  // --output-len replaces them.
  const std::string fixed = make_temp_dir("ds-sharegpt-fixed");
  r = run_process(
      run_args(sim.url(), fixed,
               {"--dataset", "sharegpt", "--dataset-path", sample("sharegpt.json"), "--num-prompts",
                "3", "--output-len", "5", "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lengths(fixed), (Lengths{{12, 5}, {7, 5}, {9, 5}}));
}

TEST(EndToEndDatasets, TracesGiveTheirLengths) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.2"});
  const std::string mooncake = make_temp_dir("ds-mooncake");
  auto r = run_process(
      run_args(sim.url(), mooncake,
               {"--dataset", "mooncake", "--dataset-path", sample("mooncake.jsonl"),
                "--num-prompts", "4", "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lengths(mooncake), (Lengths{{1100, 10}, {700, 12}, {1024, 8}, {300, 5}}));
  const std::string burst = make_temp_dir("ds-burstgpt");
  r = run_process(
      run_args(sim.url(), burst,
               {"--dataset", "burstgpt", "--dataset-path", sample("burstgpt.csv"), "--num-prompts",
                "3", "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lengths(burst), (Lengths{{40, 12}, {30, 9}, {50, 25}}));
}

TEST(EndToEndDatasets, SonnetPromptsStayWithinInputLen) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.2"});
  const std::string dir = make_temp_dir("ds-sonnet");
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--dataset-name", "sonnet", "--dataset-path", sample("sonnet.txt"),
                "--sonnet-input-len", "80", "--sonnet-prefix-len", "40", "--sonnet-output-len", "6",
                "--num-prompts", "5", "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Lengths got = lengths(dir);
  ASSERT_EQ(got.size(), 5u);
  for (const auto& [in, out] : got) {
    EXPECT_LE(in, 80);
    EXPECT_GT(in, 80 - 12);  // lines of at most 10 words: it stops within one line of 80
    EXPECT_EQ(out, 6);
  }
  EXPECT_NE(slurp(dir + "/config.yaml").find("sonnet_prefix_len: 40"), std::string::npos);
}

TEST(EndToEndDatasets, LengthDistributionsBoundTheLengthsAndConfigRepeatsThem) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.2"});
  const std::string dir = make_temp_dir("ds-dist");
  auto r = run_process(
      run_args(sim.url(), dir,
               {"--input-dist", "uniform:10,20", "--output-dist", "uniform:3,5", "--num-prompts",
                "30", "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Lengths got = lengths(dir);
  ASSERT_EQ(got.size(), 30u);
  std::set<std::int64_t> inputs;
  for (const auto& [in, out] : got) {
    EXPECT_GE(in, 10);
    EXPECT_LE(in, 20);
    EXPECT_GE(out, 3);
    EXPECT_LE(out, 5);
    inputs.insert(in);
  }
  EXPECT_GT(inputs.size(), 3u);  // drawn, not one length
  // config.yaml repeats the run: the same seed draws the same lengths.
  const std::string again = make_temp_dir("ds-dist-again");
  r = run_process({TOKENBENCH_BINARY, "run", "--config", dir + "/config.yaml", "--output-dir",
                   again, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lengths(again), got);
}

TEST(EndToEndDatasets, ImagesRideAlongWithChatPrompts) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.2"});
  const std::string dir = make_temp_dir("ds-images");
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--image-count", "2", "--image-size", "64x48", "--input-len", "12", "--output-len",
                "4", "--num-prompts", "3", "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // serve-sim counts the text (12 words) and each 64x48 image as ceil(64/28) x ceil(48/28) = 6
  // tokens: the prompt and both images arrived.
  EXPECT_EQ(lengths(dir), (Lengths{{24, 4}, {24, 4}, {24, 4}}));
  EXPECT_NE(slurp(dir + "/config.yaml").find("image_size: 64x48"), std::string::npos);
}

TEST(EndToEndDatasets, ReplaySendsAtTheTracesTimes) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.2"});
  const std::string dir = make_temp_dir("ds-replay");
  // The trace's requests at 0, 0.25, 1.0 and 1.5 s, replayed ten times as fast.
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--dataset", "mooncake", "--dataset-path", sample("mooncake.jsonl"), "--replay",
                "--replay-speed", "10", "--server-metrics", "off", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = read_records(dir + "/requests.jsonl");
  ASSERT_EQ(lines.size(), 4u);  // the trace once, not cycled
  std::sort(lines.begin(), lines.end(),
            [](const json& a, const json& b) { return a["id"] < b["id"]; });
  const std::int64_t origin = lines[0]["intended_ns"].get<std::int64_t>();
  const std::int64_t expected_ms[] = {0, 25, 100, 150};
  for (std::size_t i = 0; i < 4; ++i) {
    // Due exactly at the trace's time; sent within the documented lag of it (docs/WORKLOADS.md).
    const std::int64_t due = lines[i]["intended_ns"].get<std::int64_t>() - origin;
    EXPECT_EQ(due, expected_ms[i] * 1'000'000) << i;
    const std::int64_t lag =
        lines[i]["sent_ns"].get<std::int64_t>() - lines[i]["intended_ns"].get<std::int64_t>();
    EXPECT_GE(lag, 0) << i;
    EXPECT_LT(lag, 50'000'000) << i;
  }
  const json summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["completed"], 4);
  EXPECT_TRUE(summary["tokenbench"]["checks"]["offered_load"].contains("send_lag_p99_ms"));
}

TEST(EndToEndDatasets, BadDatasetsAreOneLineErrors) {
  for (const auto& [args, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--dataset", "hf"},
            "--dataset 'hf' is not one of random, fixed, shared-prefix, jsonl"},
           {{"--dataset", "sonnet"}, "--dataset sonnet needs --dataset-path FILE"},
           {{"--dataset", "sonnet", "--dataset-path", sample("sonnet.txt"), "--input-len", "100",
             "--sonnet-prefix-len", "101"},
            "--sonnet-prefix-len 101 is out of range: give 0 to --input-len (100) tokens"},
           {{"--dataset", "csv"}, "--dataset csv needs --dataset-path FILE"},
           {{"--dataset", "fixed"}, "--dataset fixed needs --prompt TEXT"},
           {{"--prompt", "hi"}, "--prompt is the prompt of --dataset fixed"},
           {{"--replay"}, "--replay needs a dataset with arrival times"},
           {{"--dataset", "mooncake", "--dataset-path", sample("mooncake.jsonl"), "--replay",
             "--request-rate", "4"},
            "leave out --request-rate"},
           {{"--replay-speed", "2"}, "--replay-speed applies to --replay"},
           {{"--input-dist", "normal:5"},
            "--input-dist 'normal:5': normal needs two numbers MEAN,SD (or four: MEAN,SD,MIN,MAX); "
            "use "
            "fixed, uniform:LO,HI"},
           {{"--dataset", "sharegpt", "--dataset-path", sample("sharegpt.json"), "--output-dist",
             "uniform:1,2"},
            "--output-dist draws the lengths of --dataset random and shared-prefix"},
           {{"--image-count", "1", "--endpoint", "/v1/completions"},
            "--image-count: images need --api openai-chat"},
           {{"--image-count", "1", "--image-size", "64"}, "--image-size '64': give WxH"},
           {{"--dataset", "sharegpt", "--dataset-path", sample("sharegpt.json"), "--prompt-field",
             "q"},
            "name columns of --dataset csv"},
           {{"--dataset", "mooncake", "--dataset-path", sample("bad-mooncake.jsonl"),
             "--no-preflight", "--model", "m"},
            "bad-mooncake.jsonl line 2: needs \"hash_ids\""}}) {
    std::vector<std::string> cmd{TOKENBENCH_BINARY, "run", "--base-url", "http://127.0.0.1:9",
                                 "--quiet"};
    cmd.insert(cmd.end(), args.begin(), args.end());
    const auto r = run_process(cmd);
    EXPECT_EQ(r.exit_code, 1) << args.front() << " " << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace tokenbench::e2e
