// End to end: --records-compress zstd against serve-sim: the run writes requests.jsonl.zst alone,
// `report` rebuilds the same figures from it, and config.yaml repeats the flag.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "process.h"
#include "tokenbench/records/records_io.h"

namespace tokenbench::e2e {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kSmall{"--num-prompts",    "8",   "--max-concurrency", "2",
                                      "--input-len",      "16",  "--output-len",      "16",
                                      "--server-metrics", "off", "--gpu-metrics",     "off"};

TEST(Records, ZstdRunIsReportedLikeAPlainOne) {
  SimProcess sim({"--ttft-ms", "3", "--itl-ms", "1"});
  const std::string dir = make_temp_dir("records-zstd");
  // A plain run first: --overwrite with zstd must leave no stale requests.jsonl behind.
  auto r = run_process(run_args(sim.url(), dir, kSmall));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::is_regular_file(dir + "/requests.jsonl"));
  r = run_process(with(run_args(sim.url(), dir, kSmall),
                       {"--records-compress", "zstd", "--export", "csv", "--overwrite"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/requests.jsonl"));
  ASSERT_TRUE(fs::is_regular_file(dir + "/requests.jsonl.zst"));
  EXPECT_NE(slurp(dir + "/config.yaml").find("records_compress: zstd"), std::string::npos);
  const auto records = records::read_records_jsonl(dir + "/requests.jsonl.zst");
  ASSERT_EQ(records.size(), 8u);
  for (const auto& rec : records) EXPECT_EQ(rec.chunks.size(), 16u);

  const nlohmann::json before = read_json(dir + "/summary.json");
  const std::string csv = slurp(dir + "/requests.csv");
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir, "--export", "csv"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(rep.err.find("warning"), std::string::npos) << rep.err;
  const nlohmann::json after = read_json(dir + "/summary.json");
  for (const char* key : {"completed", "mean_ttft_ms", "mean_itl_ms", "p99_itl_ms", "mean_tpot_ms",
                          "output_throughput"}) {
    EXPECT_EQ(after[key], before[key]) << key;
  }
  EXPECT_EQ(slurp(dir + "/requests.csv"), csv);
}

TEST(Records, ConfigYamlRepeatsTheCompression) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  const std::string first = make_temp_dir("records-first");
  auto r = run_process(with(run_args(sim.url(), first, kSmall), {"--records-compress", "zstd"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string again = make_temp_dir("records-again");
  r = run_process({TOKENBENCH_BINARY, "run", "--config", first + "/config.yaml", "--output-dir",
                   again, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(again + "/requests.jsonl.zst"));
  EXPECT_FALSE(fs::exists(again + "/requests.jsonl"));

  const auto bad = run_process(with(run_args(sim.url(), make_temp_dir("records-bad"), kSmall),
                                    {"--records-compress", "gz"}));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--records-compress"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace tokenbench::e2e
