// The option table (core/run_options.h) as the CLI serves it: every row's flag is a flag of `run`,
// and --lora-modules (issue 30), added through the table, reaches the request bodies.

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "capture_server.h"
#include "process.h"
#include "tokenbench/core/run_options.h"

namespace tokenbench::e2e {
namespace {

TEST(EndToEndOptionTable, EveryRowsFlagIsAFlagOfRun) {
  const auto help = run_process({TOKENBENCH_BINARY, "run", "--help"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  for (const auto& row : core::run_options()) {
    if (row.flag.empty()) continue;
    // "--flag TYPE", or "--flag,--other TYPE" for a flag with a second name (--export,--emit).
    const bool listed = help.out.find(std::string(row.flag) + " ") != std::string::npos ||
                        help.out.find(std::string(row.flag) + ",") != std::string::npos;
    EXPECT_TRUE(listed) << row.flag << " is not a flag of run";
  }
}

std::vector<std::string> models_sent(const CaptureServer& server) {
  std::vector<std::string> models;
  for (const auto& post : server.requests_to("POST /v1/chat/completions ")) {
    const auto body = nlohmann::json::parse(post.substr(post.find("\r\n\r\n") + 4));
    models.push_back(body.value("model", ""));
  }
  return models;
}

TEST(EndToEndOptionTable, LoraModulesNameEachRequestsModelInTurn) {
  CaptureServer server;
  const std::string dir = make_temp_dir("option_table_lora");
  const auto r =
      run_process(run_args(server.url(), dir,
                           {"--num-prompts", "6", "--max-concurrency", "1", "--fail-fast", "0",
                            "--output-len", "3", "--lora-modules", "sql-lora,chat-lora,code-lora",
                            "--server-metrics", "off", "--gpu-metrics", "off"}));
  EXPECT_EQ(r.exit_code, 2) << r.err;  // the capture server answers 400
  EXPECT_EQ(models_sent(server), (std::vector<std::string>{"sql-lora", "chat-lora", "code-lora",
                                                           "sql-lora", "chat-lora", "code-lora"}));
  const YAML::Node config = YAML::Load(slurp(dir + "/config.yaml"));
  EXPECT_EQ(config["target"]["lora_modules"].size(), 3u);
  EXPECT_EQ(config["target"]["lora_assignment"].as<std::string>(), "round-robin");
}

TEST(EndToEndOptionTable, WithoutLoraModulesEveryRequestNamesTheModel) {
  CaptureServer server;
  const auto r = run_process(
      run_args(server.url(), make_temp_dir("option_table_no_lora"),
               {"--num-prompts", "2", "--max-concurrency", "1", "--fail-fast", "0", "--output-len",
                "3", "--server-metrics", "off", "--gpu-metrics", "off"}));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(models_sent(server), (std::vector<std::string>{"captured-model", "captured-model"}));
}

TEST(EndToEndOptionTable, AnUnknownLoraAssignmentIsAUsageError) {
  const auto r = run_process(run_args("http://127.0.0.1:9", make_temp_dir("option_table_bad"),
                                      {"--lora-modules", "a,b", "--lora-assignment", "sticky"}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("--lora-assignment"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tokenbench::e2e
