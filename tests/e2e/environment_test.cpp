// End to end: a run records its environment (client facts, tokenbench's version, the command
// line, serve-sim's self-description, --label values) in summary.json, environment.json and the
// console; `report` reproduces it; no credential is written anywhere.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "process.h"
#include "tokenbench/core/version.h"

namespace tokenbench::e2e {
namespace {

TEST(EndToEndEnvironment, RecordsTheClientTheServerAndTheLabelsButNoSecret) {
  SimProcess sim({"--time-scale", "10", "--api-key", "SECRET123", "--model", "sim-llama"});
  const std::string dir = make_temp_dir("environment");
  const auto r = run_process(run_args(sim.url(), dir,
                                      {"--num-prompts", "5", "--input-len", "16", "--output-len",
                                       "4", "--label", "cuda=12.4", "--label", "weights=rev-abc",
                                       "--header", "X-Api-Key: SECRET123", "--gpu-metrics", "off"}),
                             std::chrono::seconds(60), {{"OPENAI_API_KEY", "SECRET123"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  const auto summary = read_json(dir + "/summary.json");
  const auto& env = summary["tokenbench"]["environment"];
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  EXPECT_EQ(env["host"], host);
  EXPECT_EQ(env["os"]["sysname"], "Linux");
  EXPECT_FALSE(env["os"]["release"].get<std::string>().empty());
  EXPECT_GT(env["cpu"]["count"].get<int>(), 0);
  EXPECT_EQ(env["tokenbench_version"], std::string(core::kVersion));
  EXPECT_FALSE(env["started_at"].get<std::string>().empty());
  const auto& server = env["server"];
  EXPECT_EQ(server["url"], sim.url());
  EXPECT_EQ(server["software"], "tokenbench-sim " + std::string(core::kVersion));
  EXPECT_EQ(server["server_header"], "tokenbench-sim");
  EXPECT_EQ(server["endpoints"]["/version"]["version"],
            "tokenbench-sim " + std::string(core::kVersion));
  ASSERT_EQ(server["models"].size(), 1u) << server.dump();
  EXPECT_EQ(server["models"][0]["id"], "sim-llama");
  EXPECT_EQ(server["models"][0]["owned_by"], "tokenbench-sim");
  EXPECT_GT(server["models"][0]["max_model_len"].get<int>(), 0);
  EXPECT_EQ(env["labels"]["cuda"], "12.4");
  EXPECT_EQ(env["labels"]["weights"], "rev-abc");
  EXPECT_TRUE(env["gpus"].is_null());
  const auto argv = env["command_line"].get<std::vector<std::string>>();
  EXPECT_EQ(argv.at(1), "run");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "cuda=12.4"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "X-Api-Key: <redacted>"), argv.end());
  EXPECT_EQ(read_json(dir + "/environment.json").dump(), env.dump());

  EXPECT_NE(r.out.find("\nEnvironment:\n  client   "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  server   tokenbench-sim " + std::string(core::kVersion) +
                       "; models: sim-llama (max_model_len "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  labels   cuda=12.4, weights=rev-abc\n"), std::string::npos) << r.out;

  // `report` reproduces the record and its block from environment.json.
  const std::string console = slurp(dir + "/report.txt");
  std::filesystem::remove(dir + "/report.txt");
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(read_json(dir + "/summary.json")["tokenbench"]["environment"].dump(), env.dump());
  EXPECT_EQ(slurp(dir + "/report.txt"), console);

  // The key is in no file of the results directory, nor in what the run printed.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    EXPECT_EQ(slurp(entry.path().string()).find("SECRET123"), std::string::npos) << entry.path();
  }
  EXPECT_EQ(r.out.find("SECRET123"), std::string::npos);
  EXPECT_EQ(r.err.find("SECRET123"), std::string::npos);
}

TEST(EndToEndEnvironment, ABadLabelIsAOneLineError) {
  const std::string dir = make_temp_dir("bad-label");
  for (const char* bad : {"nokey", "=value"}) {
    const auto r = run_process(run_args("http://127.0.0.1:9", dir, {"--label", bad}));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(r.err.rfind("tokenbench: error: --label '", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace tokenbench::e2e
