#include "tokenbench/client/credentials.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace tokenbench::client {
namespace {

TEST(Credentials, EnvironmentWinsOverDotenv) {
  const std::string path = ::testing::TempDir() + "dotenv1";
  std::ofstream(path) << "TB_TEST_KEY=from-file\n";
  setenv("TB_TEST_KEY", "from-env", 1);
  EXPECT_EQ(find_api_key("TB_TEST_KEY", path), "from-env");
  unsetenv("TB_TEST_KEY");
  EXPECT_EQ(find_api_key("TB_TEST_KEY", path), "from-file");
}

TEST(Credentials, DotenvSyntax) {
  const std::string path = ::testing::TempDir() + "dotenv2";
  std::ofstream(path) << "# comment\n\nOTHER=x\nexport TB_Q=\"quoted value\"\nTB_C=abc # note\n";
  unsetenv("TB_Q");
  unsetenv("TB_C");
  EXPECT_EQ(find_api_key("TB_Q", path), "quoted value");
  EXPECT_EQ(find_api_key("TB_C", path), "abc");
  EXPECT_FALSE(find_api_key("TB_MISSING", path).has_value());
  EXPECT_FALSE(find_api_key("TB_Q", ::testing::TempDir() + "no-such-file").has_value());
}

TEST(Credentials, FirstModelIdAndRedaction) {
  EXPECT_EQ(first_model_id(R"({"object":"list","data":[{"id":"llama"},{"id":"b"}]})"), "llama");
  EXPECT_FALSE(first_model_id(R"({"data":[]})").has_value());
  EXPECT_FALSE(first_model_id("not json").has_value());
  EXPECT_EQ(redact("bad key sk-123 (sk-123)", "sk-123"), "bad key <redacted> (<redacted>)");
  EXPECT_EQ(redact("text", ""), "text");
}

}  // namespace
}  // namespace tokenbench::client
