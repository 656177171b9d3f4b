// serve-sim --request-log: one whole JSON line per request, with what the request asked.

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "tokenbench/sim/request_log.h"

namespace tokenbench::sim {
namespace {

TEST(SimRequestLog, OneLinePerRequestWithWhatItAsked) {
  const std::string path = ::testing::TempDir() + "request_log_" + std::to_string(getpid());
  {
    RequestLog log(path);
    CompletionRequest chat;
    chat.api = ApiKind::kChat;
    chat.stream = true;
    chat.prompt_tokens = 550;
    chat.max_tokens = 150;
    chat.ignore_eos = true;
    log.write(chat, 0, core::Clock::now());
    CompletionRequest completions;
    completions.api = ApiKind::kCompletions;
    completions.max_tokens = 16;
    completions.min_tokens = 16;
    completions.lora = 2;
    log.write(completions, 1, core::Clock::now());
  }
  std::ifstream in(path);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  auto first = nlohmann::json::parse(line);
  EXPECT_EQ(first["arrival"], 0);
  EXPECT_EQ(first["api"], "chat");
  EXPECT_EQ(first["stream"], true);
  EXPECT_EQ(first["prompt_tokens"], 550);
  EXPECT_EQ(first["max_tokens"], 150);
  EXPECT_EQ(first["ignore_eos"], true);
  EXPECT_EQ(first["lora"], -1);
  EXPECT_GE(first["at_ms"].get<double>(), 0.0);
  ASSERT_TRUE(std::getline(in, line));
  auto second = nlohmann::json::parse(line);
  EXPECT_EQ(second["api"], "completions");
  EXPECT_EQ(second["stream"], false);
  EXPECT_EQ(second["min_tokens"], 16);
  EXPECT_EQ(second["lora"], 2);
  EXPECT_FALSE(std::getline(in, line));
  std::remove(path.c_str());
}

TEST(SimRequestLog, AFileThatCannotBeWrittenIsNamed) {
  try {
    RequestLog log("/nonexistent-dir/requests.log");
    FAIL() << "opened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--request-log '/nonexistent-dir/requests.log'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tokenbench::sim
