// --nonstream-sample's range: 0 to --num-prompts, and only with streaming.

#include <gtest/gtest.h>

#include <string>

#include "tokenbench/core/config_check.h"

namespace tokenbench::core {
namespace {

std::string error_for(std::int64_t k, bool stream, std::int64_t num_prompts = 40) {
  RunConfig c;
  c.num_prompts = num_prompts;
  c.duration_s = num_prompts > 0 ? 0 : 10;
  c.nonstream_sample = k;
  c.stream = stream;
  try {
    validate(c);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(NonstreamSampleConfig, ZeroToNumPromptsWithStreaming) {
  EXPECT_EQ(error_for(0, true), "");
  EXPECT_EQ(error_for(5, true), "");
  EXPECT_EQ(error_for(40, true), "");
  EXPECT_EQ(error_for(0, false), "");
  EXPECT_NE(error_for(41, true).find("--nonstream-sample"), std::string::npos);
  EXPECT_NE(error_for(-1, true).find("--nonstream-sample"), std::string::npos);
  EXPECT_NE(error_for(5, false).find("drop --no-stream"), std::string::npos);
  EXPECT_EQ(error_for(100, true, 0), "");  // --duration: among its 4096 prompts
  EXPECT_NE(error_for(5000, true, 0).find("4096"), std::string::npos);
}

}  // namespace
}  // namespace tokenbench::core
