#include "tokenbench/core/secret_fields.h"

#include <gtest/gtest.h>

#include "tokenbench/core/config_check.h"
#include "tokenbench/core/run_config.h"

namespace tokenbench::core {
namespace {

TEST(SecretFields, CredentialNamesAreWordsNotSubstrings) {
  for (const char* name : {"api-key", "api_key", "apiKey", "key", "KEY", "access_token", "token",
                           "client_secret", "password", "Authorization", "auth", "X-Amz-Signature",
                           "sig", "X-Amz-Credential", "subscription-key", "sessionToken"}) {
    EXPECT_TRUE(is_credential_name(name)) << name;
  }
  for (const char* name : {"max_tokens", "max_completion_tokens", "tokenizer", "model",
                           "temperature", "design", "keys", "author", ""}) {
    EXPECT_FALSE(is_credential_name(name)) << name;
  }
}

TEST(SecretFields, QueryValuesAreRedactedAndCollected) {
  std::vector<std::string> values;
  EXPECT_EQ(redact_query("/v1/chat/completions?api-key=s3cr%2Bt&x=1&token=abc#frag", &values),
            "/v1/chat/completions?api-key=<redacted>&x=1&token=<redacted>#frag");
  EXPECT_EQ(values, (std::vector<std::string>{"abc", "s3cr%2Bt", "s3cr+t"}));
  EXPECT_EQ(redact_query("/v1/chat/completions?model=m"), "/v1/chat/completions?model=m");
  EXPECT_EQ(redact_query("http://h:8000/v1?key="), "http://h:8000/v1?key=");  // nothing to hide
  EXPECT_EQ(redacted_query_parameter("/v1?x=1&api-key=<redacted>"), "api-key");
  EXPECT_EQ(redacted_query_parameter("/v1?x=1"), "");
}

TEST(SecretFields, CommandLinesKeepNoCredential) {
  EXPECT_EQ(
      redact_command("HF_TOKEN=hf_abc vllm serve m --port {port} --api-key sk-1 "
                     "--max-num-seqs 64"),
      "HF_TOKEN=<redacted> vllm serve m --port {port} --api-key <redacted> --max-num-seqs 64");
  EXPECT_EQ(redact_command("server --hf-token=t0k  --max-tokens 5"),
            "server --hf-token=<redacted>  --max-tokens 5");
  EXPECT_EQ(redact_command("--api-key"), "--api-key");  // its value is the next argument
  EXPECT_EQ(redact_command("serve --model m"), "serve --model m");
}

TEST(SecretFields, BodyFieldsWithStringValuesAreRedactedAtAnyDepth) {
  std::vector<std::string> values;
  const std::string out = redact_json_fields(
      R"({"api_key":"k1","max_tokens":5,"extra":{"auth":{"token":"k2"},"tokenizer":"t"}})",
      &values);
  EXPECT_EQ(out,
            R"({"api_key":"<redacted>","extra":{"auth":{"token":"<redacted>"},"tokenizer":"t"},)"
            R"("max_tokens":5})");
  EXPECT_EQ(values, (std::vector<std::string>{"k1", "k2"}));
  EXPECT_EQ(redact_json_fields(R"({"temperature": 0.5})"), R"({"temperature": 0.5})");
  EXPECT_EQ(redact_json_fields("{not json"), "{not json");
  // Past the nesting limit it is not parsed (nor walked), and comes back as it was.
  const std::string deep = R"({"a":)" + std::string(300, '[') + std::string(300, ']') + "}";
  EXPECT_EQ(redact_json_fields(deep), deep);
  EXPECT_EQ(redacted_json_field(deep), "");
  EXPECT_EQ(redacted_json_field(out), "api_key");
  EXPECT_EQ(redacted_json_field(R"({"a":{"b_token":"<redacted>"}})"), "a.b_token");
}

// Issue 25: a config.yaml whose credentials were redacted cannot be replayed as if they were
// there: the error names the value to give again.
TEST(SecretFields, ReplayingARedactedValueIsAnErrorNamingIt) {
  RunConfig c;
  c.endpoint = "/v1/chat/completions?api-key=<redacted>";
  try {
    validate(c);
    FAIL() << "accepted a redacted endpoint";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--endpoint has the query parameter 'api-key'"),
              std::string::npos)
        << e.what();
  }
  c.endpoint = "/v1/chat/completions";
  c.extra_body = R"({"api_key":"<redacted>"})";
  try {
    validate(c);
    FAIL() << "accepted a redacted body field";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--extra-body has the field 'api_key'"), std::string::npos)
        << e.what();
  }
}

TEST(SecretFields, ConfigYamlNeverKeepsThem) {
  RunConfig c;
  c.endpoint = "/v1/chat/completions?api-key=sk-query-secret";
  c.extra_body = R"({"api_key":"sk-body-secret","top_k":3})";
  const std::string yaml = to_yaml(c);
  EXPECT_EQ(yaml.find("sk-query-secret"), std::string::npos);
  EXPECT_EQ(yaml.find("sk-body-secret"), std::string::npos);
  EXPECT_NE(yaml.find("api-key=<redacted>"), std::string::npos);
  EXPECT_NE(yaml.find("top_k"), std::string::npos);
}

// A distributed follower reads each level from config.yaml's text: the credentials it left out
// come back from the rank's own configuration, and nothing else does.
TEST(SecretFields, AFollowerTakesTheRedactedValuesFromItsOwnConfiguration) {
  RunConfig own;
  own.endpoint = "/v1/chat/completions?api-key=sk-1";
  own.extra_body = R"({"api_key":"sk-2"})";
  own.num_prompts = 10;
  RunConfig level = run_config_from_yaml(to_yaml(own));
  EXPECT_EQ(level.endpoint, "/v1/chat/completions?api-key=<redacted>");
  level.num_prompts = 20;  // a sweep's level
  const RunConfig restored = with_secrets_of(level, own);
  EXPECT_EQ(restored.endpoint, own.endpoint);
  EXPECT_EQ(restored.extra_body, own.extra_body);
  EXPECT_EQ(restored.num_prompts, 20);
  level.endpoint = "/v1/completions?api-key=<redacted>";  // another value: kept as announced
  EXPECT_EQ(with_secrets_of(level, own).endpoint, level.endpoint);
}

}  // namespace
}  // namespace tokenbench::core
