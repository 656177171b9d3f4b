// route_request(): serve-sim's routing and validation, without sockets.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "sim_image_data.h"
#include "tokenbench/sim/http_fields.h"
#include "tokenbench/sim/image_tokens.h"
#include "tokenbench/sim/router.h"

namespace tokenbench::sim {
namespace {

using nlohmann::json;

RouterConfig config(std::string_view key = {}) {
  return {.model = "sim-model",
          .default_max_tokens = 16,
          .hash_block_size = 0,
          .context_limit = 1000,
          .api_key = key};
}

RoutedRequest route(std::string_view method, std::string_view target, std::string_view body = {},
                    std::string_view key = {}, std::string_view authorization = {},
                    std::string_view x_api_key = {}) {
  return route_request({.method = method,
                        .target = target,
                        .authorization = authorization,
                        .x_api_key = x_api_key,
                        .body = body},
                       config(key));
}

CompletionRequest accepted(const RoutedRequest& r) {
  if (const auto* err = std::get_if<ErrorReply>(&r)) {
    ADD_FAILURE() << "refused: " << err->status << " " << err->body;
    return {};
  }
  EXPECT_TRUE(std::holds_alternative<CompletionRequest>(r));
  return std::holds_alternative<CompletionRequest>(r) ? std::get<CompletionRequest>(r)
                                                      : CompletionRequest{};
}

ErrorReply refused(const RoutedRequest& r) {
  EXPECT_TRUE(std::holds_alternative<ErrorReply>(r));
  return std::holds_alternative<ErrorReply>(r) ? std::get<ErrorReply>(r) : ErrorReply{};
}

TEST(SimRouterTest, InfoEndpoints) {
  EXPECT_EQ(std::get<InfoEndpoint>(route("GET", "/health")), InfoEndpoint::kHealth);
  EXPECT_EQ(std::get<InfoEndpoint>(route("GET", "/version")), InfoEndpoint::kVersion);
  EXPECT_EQ(std::get<InfoEndpoint>(route("GET", "/metrics?x=1")), InfoEndpoint::kMetrics);
  EXPECT_EQ(std::get<InfoEndpoint>(route("GET", "/v1/models")), InfoEndpoint::kModels);
  EXPECT_EQ(refused(route("POST", "/health")).status, 405);
  EXPECT_EQ(refused(route("POST", "/v1/models")).status, 405);
  const ErrorReply missing = refused(route("GET", "/v2/nothing"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(json::parse(missing.body)["error"]["message"],
            "The path `/v2/nothing` does not exist.");
}

TEST(SimRouterTest, EachGenerationPath) {
  EXPECT_EQ(accepted(route("POST", "/v1/chat/completions",
                           R"({"messages":[{"role":"user","content":"a b"}]})"))
                .api,
            ApiKind::kChat);
  EXPECT_EQ(accepted(route("POST", "/v1/completions", R"({"prompt":"a b c"})")).prompt_tokens, 3);
  const CompletionRequest messages = accepted(route(
      "POST", "/v1/messages",
      R"({"max_tokens":5,"system":"be brief","messages":[{"role":"user","content":[{"type":"text","text":"x y z"}]}],"thinking":{"type":"enabled","budget_tokens":4}})"));
  EXPECT_EQ(messages.api, ApiKind::kMessages);
  EXPECT_EQ(messages.prompt_tokens, 5);
  EXPECT_EQ(messages.max_tokens, 5);
  EXPECT_TRUE(messages.reasoning);
  const CompletionRequest responses = accepted(route(
      "POST", "/v1/responses",
      R"({"input":[{"role":"user","content":[{"type":"input_text","text":"p q"}]}],"instructions":"r","max_output_tokens":7,"stream":true})"));
  EXPECT_EQ(responses.api, ApiKind::kResponses);
  EXPECT_EQ(responses.prompt_tokens, 3);
  EXPECT_EQ(responses.max_tokens, 7);
  EXPECT_TRUE(responses.stream);
  EXPECT_EQ(accepted(route("POST", "/v1/responses", R"({"input":"a b"})")).max_tokens, 16);
  const CompletionRequest embeddings =
      accepted(route("POST", "/v1/embeddings", R"({"input":["a b","c",[1,2,3,4]]})"));
  EXPECT_EQ(embeddings.api, ApiKind::kEmbeddings);
  EXPECT_EQ(embeddings.prompt_tokens, 7);
  EXPECT_EQ(embeddings.input_hashes.size(), 3u);
  EXPECT_FALSE(embeddings.stream);
  EXPECT_EQ(refused(route("GET", "/v1/embeddings")).status, 405);
}

TEST(SimRouterTest, BadJsonInEachApisShape) {
  const ErrorReply openai = refused(route("POST", "/v1/chat/completions", "{oops"));
  EXPECT_EQ(openai.status, 400);
  EXPECT_EQ(json::parse(openai.body)["error"]["type"], "invalid_request_error");
  EXPECT_EQ(json::parse(openai.body)["error"]["code"], 400);
  const ErrorReply anthropic = refused(route("POST", "/v1/messages", "{oops"));
  EXPECT_EQ(anthropic.status, 400);
  EXPECT_EQ(
      anthropic.body,
      R"({"type":"error","error":{"type":"invalid_request_error","message":"The request body is not valid JSON."}})");
  EXPECT_EQ(refused(route("POST", "/v1/responses", "[1]")).status, 400);
  EXPECT_EQ(refused(route("POST", "/v1/embeddings", R"({"input":[{}]})")).status, 400);
  EXPECT_EQ(refused(route("POST", "/v1/embeddings", R"({"input":"a","encoding_format":"base64"})"))
                .status,
            400);
}

TEST(SimRouterTest, MessagesRequireMaxTokens) {
  const ErrorReply e =
      refused(route("POST", "/v1/messages", R"({"messages":[{"role":"user","content":"hi"}]})"));
  EXPECT_EQ(e.status, 400);
  const json body = json::parse(e.body);
  EXPECT_EQ(body["type"], "error");
  EXPECT_EQ(body["error"]["type"], "invalid_request_error");
  EXPECT_EQ(body["error"]["message"], "max_tokens: Field required");
}

TEST(SimRouterTest, ApiKeyFromBearerOrXApiKey) {
  const std::string body = R"({"max_tokens":2,"messages":[{"role":"user","content":"hi"}]})";
  const ErrorReply none = refused(route("POST", "/v1/messages", body, "k"));
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(json::parse(none.body)["error"]["type"], "authentication_error");
  EXPECT_EQ(refused(route("POST", "/v1/messages", body, "k", {}, "wrong")).status, 401);
  EXPECT_EQ(refused(route("POST", "/v1/messages", body, "k", "Bearer kk")).status, 401);
  EXPECT_EQ(accepted(route("POST", "/v1/messages", body, "k", {}, "k")).max_tokens, 2);
  EXPECT_EQ(accepted(route("POST", "/v1/messages", body, "k", "Bearer k")).max_tokens, 2);
  const ErrorReply chat = refused(route("GET", "/v1/models", {}, "k"));
  EXPECT_EQ(json::parse(chat.body)["error"]["code"], 401);
  EXPECT_EQ(std::get<InfoEndpoint>(route("GET", "/v1/models", {}, "k", {}, "k")),
            InfoEndpoint::kModels);
  EXPECT_EQ(std::get<InfoEndpoint>(route("GET", "/health", {}, "k")), InfoEndpoint::kHealth);
}

TEST(SimRouterTest, ContextLimit) {
  const ErrorReply e =
      refused(route("POST", "/v1/messages",
                    R"({"max_tokens":1000,"messages":[{"role":"user","content":"a b"}]})"));
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(json::parse(e.body)["error"]["type"], "invalid_request_error");
}

TEST(SimRouterTest, ChatToolsAndMaxCompletionTokens) {
  const CompletionRequest tool = accepted(route(
      "POST", "/v1/chat/completions",
      R"({"messages":[{"role":"user","content":"x"}],"max_completion_tokens":9,"tools":[{"type":"function","function":{"name":"get_weather","parameters":{}}},{"type":"function","function":{"name":"other"}}]})"));
  EXPECT_EQ(tool.tool_name, "get_weather");
  EXPECT_EQ(tool.max_tokens, 9);
  EXPECT_TRUE(tool.reasoning);
  const CompletionRequest none = accepted(route(
      "POST", "/v1/chat/completions",
      R"({"messages":[{"role":"user","content":"x"}],"tool_choice":"none","tools":[{"type":"function","function":{"name":"f"}}]})"));
  EXPECT_TRUE(none.tool_name.empty());
  EXPECT_TRUE(accepted(route("POST", "/v1/chat/completions",
                             R"({"messages":[{"role":"user","content":"x"}],"tools":[]})"))
                  .tool_name.empty());
  EXPECT_EQ(refused(route("POST", "/v1/chat/completions",
                          R"({"messages":[],"tools":[{"type":"function"}]})"))
                .status,
            400);
  // max_tokens wins over max_completion_tokens.
  EXPECT_EQ(accepted(route("POST", "/v1/chat/completions",
                           R"({"messages":[],"max_tokens":3,"max_completion_tokens":9})"))
                .max_tokens,
            3);
}

TEST(SimRouterTest, ImagesAreCharged) {
  EXPECT_EQ(image_tokens(56, 30), 4);
  EXPECT_EQ(image_tokens(28, 28), 1);
  EXPECT_EQ(image_tokens(1, 1), 1);
  EXPECT_EQ(image_tokens(448, 448), 256);
  const std::string png = "data:image/png;base64," + testing::png_base64(56, 30);
  const CompletionRequest chat = accepted(route(
      "POST", "/v1/chat/completions",
      R"({"messages":[{"role":"user","content":[{"type":"text","text":"what is it"},{"type":"image_url","image_url":{"url":")" +
          png + R"("}}]}]})"));
  EXPECT_EQ(chat.images, 1);
  EXPECT_EQ(chat.image_tokens, 4);
  EXPECT_EQ(chat.prompt_tokens, 3 + 4);
  const CompletionRequest messages = accepted(route(
      "POST", "/v1/messages",
      R"({"max_tokens":3,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":")" +
          testing::jpeg_base64(100, 29) + R"("}}]}]})"));
  EXPECT_EQ(messages.image_tokens, 4 * 2);
  EXPECT_EQ(messages.prompt_tokens, 8);
  const CompletionRequest responses =
      accepted(route("POST", "/v1/responses",
                     R"({"input":[{"role":"user","content":[{"type":"input_image","image_url":")" +
                         png + R"("}]}]})"));
  EXPECT_EQ(responses.images, 1);
  EXPECT_EQ(responses.prompt_tokens, 4);

  const ErrorReply remote = refused(route(
      "POST", "/v1/chat/completions",
      R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://example.com/cat.png"}}]}]})"));
  EXPECT_EQ(remote.status, 400);
  EXPECT_NE(json::parse(remote.body)["error"]["message"].get<std::string>().find("data: URLs"),
            std::string::npos);
  const ErrorReply garbage = refused(route(
      "POST", "/v1/chat/completions",
      R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,aGVsbG8gd29ybGQ="}}]}]})"));
  EXPECT_EQ(garbage.status, 400);
  EXPECT_EQ(json::parse(garbage.body)["error"]["message"],
            "Cannot read image 1: the image is neither a PNG nor a JPEG.");
}

TEST(SimHttpFieldsTest, CodingsAndRequestIds) {
  namespace http = boost::beast::http;
  http::request_header<> req;
  req.insert(http::field::transfer_encoding, "Chunked ; q=1");
  req.insert(http::field::content_encoding, "identity, gzip");
  EXPECT_EQ(unsupported_coding(req, http::field::transfer_encoding, {"chunked", "identity"}), "");
  EXPECT_EQ(unsupported_coding(req, http::field::content_encoding, {"identity"}), "gzip");
  EXPECT_TRUE(usable_request_id("run-1.a:b_c"));
  EXPECT_FALSE(usable_request_id(""));
  EXPECT_FALSE(usable_request_id("a b"));
  EXPECT_FALSE(usable_request_id(std::string(129, 'a')));
}

}  // namespace
}  // namespace tokenbench::sim
