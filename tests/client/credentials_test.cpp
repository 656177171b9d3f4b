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
  EXPECT_EQ(redact("user=r", "r"), "user=<redacted>");
  EXPECT_EQ(redact("d d", "d"), "<redacted> <redacted>");
  EXPECT_EQ(redact("x<redacted>x", "<redacted>"), "x<redacted>x");
  const std::string long_d(16, 'd');
  EXPECT_EQ(redact(long_d + long_d, long_d), "<redacted><redacted>");
}

// Issue 25: with OPENAI_API_KEY=x the console said "ma<redacted>imum conte<redacted>t". A short
// key is cut only where it stands alone, as a value; a real (long) key everywhere.
TEST(Credentials, ShortKeyIsCutOnlyWhereItStandsAlone) {
  EXPECT_EQ(redact("maximum context length exceeded", "x"), "maximum context length exceeded");
  EXPECT_EQ(redact("Authorization: Bearer x", "x"), "Authorization: Bearer <redacted>");
  EXPECT_EQ(redact("/v1/chat?key=x&y=1", "x"), "/v1/chat?key=<redacted>&y=1");
  EXPECT_EQ(redact(R"({"api_key":"x"})", "x"), R"({"api_key":"<redacted>"})");
  EXPECT_EQ(redact("key test; testing", "test"), "key <redacted>; testing");
  // A short key that begins or ends with a separator is cut beside letters on that side.
  EXPECT_EQ(redact("a-b-c", "-b-"), "a<redacted>c");
  const std::string real = "sk-proj-0123456789abcdef";
  EXPECT_EQ(redact("glued" + real + "tail", real), "glued<redacted>tail");
}

TEST(Credentials, OriginsCompareSchemeHostAndPort) {
  EXPECT_EQ(origin_of("http://Host:8000/v1/models"), "http://host:8000");
  EXPECT_EQ(origin_of("http://host/metrics"), "http://host:80");
  EXPECT_EQ(origin_of("HTTPS://user:pw@host?x=1"), "https://host:443");
  EXPECT_EQ(origin_of("http://[::1]:9000/metrics"), "http://[::1]:9000");
  EXPECT_EQ(origin_of("http://[::1]/metrics"), "http://[::1]:80");
  EXPECT_EQ(origin_of("/v1/models"), "");
  EXPECT_EQ(origin_of("http://host:80"), origin_of("http://host/"));
  EXPECT_NE(origin_of("http://host:8000"), origin_of("https://host:8000"));
}

// Issue 25: --server-metrics http://other-host/metrics received "Authorization: Bearer <key>".
TEST(Credentials, CredentialsGoOnlyToTheTargetsOrigin) {
  const std::vector<std::string> headers = {"Authorization: Bearer sk-1", "X-Team: a",
                                            "x-api-key: sk-2"};
  bool withheld = false;
  EXPECT_EQ(headers_for_origin("http://other:9400/metrics", "http://host:8000", headers, false,
                               &withheld),
            std::vector<std::string>{"X-Team: a"});
  EXPECT_TRUE(withheld);
  EXPECT_EQ(
      headers_for_origin("http://HOST:8000/metrics", "http://host:8000", headers, false, &withheld),
      headers);
  EXPECT_FALSE(withheld);
  EXPECT_EQ(headers_for_origin("http://host:8001/metrics", "http://host:8000", headers, true),
            headers);  // --server-metrics-auth
  EXPECT_EQ(
      headers_for_origin("https://host:8000/metrics", "http://host:8000", headers, false).size(),
      1u);
}

}  // namespace
}  // namespace tokenbench::client
