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

// A server that says a time scale no serve-sim can run at is not believed (fuzz/model_list.cpp
// checks the same on every input).
TEST(Credentials, ModelListIgnoresATimeScaleThatIsNotFinitePositive) {
  for (const char* scale : {"0", "-2", "-0.0"}) {
    const std::string body =
        std::string(R"({"data":[{"id":"m","tokenbench_sim":{"time_scale":)") + scale + "}}]}";
    const ModelList list = parse_model_list(body);
    EXPECT_EQ(list.ids, std::vector<std::string>{"m"}) << scale;
    EXPECT_FALSE(list.sim_time_scale.has_value()) << scale;
  }
  EXPECT_EQ(
      parse_model_list(R"({"data":[{"id":"m","tokenbench_sim":{"time_scale":8}}]})").sim_time_scale,
      8.0);
}

// Found by fuzz/redact.cpp (fuzz/corpus/redact/key-inside-marker): a key that occurs in
// "<redacted>" itself was found again in each replacement, and redact never returned.
TEST(Credentials, RedactKeyThatOccursInTheMarker) {
  EXPECT_EQ(redact("user=r", "r"), "use<redacted>=<redacted>");
  EXPECT_EQ(redact("dd", "d"), "<redacted><redacted>");
  EXPECT_EQ(redact("x<redacted>x", "<redacted>"), "x<redacted>x");
}

}  // namespace
}  // namespace tokenbench::client
