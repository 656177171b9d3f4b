// The reply renderers of serve-sim's APIs: the exact bytes of a small reply. The Messages stream
// follows Anthropic's public "Streaming Messages" documentation, the Responses stream OpenAI's
// public Responses streaming-events reference; these texts are what serve-sim sends.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tokenbench/sim/reply_renderer.h"

namespace tokenbench::sim {
namespace {

using nlohmann::json;

// Three tokens, " a" " b" " c", the first of them reasoning.
ReplyShape small_shape(FinishReason finish) {
  ReplyShape s;
  s.prompt_tokens = 3;
  s.output_tokens = 3;
  s.reasoning_tokens = 1;
  s.finish = finish;
  return s;
}

std::string stream(ReplyRenderer& r) {
  std::string out;
  r.append_start(out);
  r.append_token(out, 0, " a");
  r.append_token(out, 1, " b");
  r.append_token(out, 2, " c");
  r.append_end(out, nullptr);
  return out;
}

std::string words(const ReplyShape& s, std::int64_t from, std::int64_t to) {
  std::string out;
  for (std::int64_t i = from; i < to; ++i) out += token_text(s.seed, s.arrival, i);
  return out;
}

TEST(SimReplyRenderTest, MessagesStreamWithThinking) {
  const ReplyShape shape = small_shape(FinishReason::kStop);
  auto r = make_reply_renderer(ApiKind::kMessages);
  r->reset({ApiKind::kMessages, "msg_1", 7, "m"}, shape);
  EXPECT_EQ(
      stream(*r),
      "event: message_start\n"
      R"(data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":0}}})"
      "\n\n"
      "event: content_block_start\n"
      R"(data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}})"
      "\n\n"
      "event: content_block_delta\n"
      R"(data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" a"}})"
      "\n\n"
      "event: content_block_stop\n"
      R"(data: {"type":"content_block_stop","index":0})"
      "\n\n"
      "event: content_block_start\n"
      R"(data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}})"
      "\n\n"
      "event: content_block_delta\n"
      R"(data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" b"}})"
      "\n\n"
      "event: content_block_delta\n"
      R"(data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" c"}})"
      "\n\n"
      "event: content_block_stop\n"
      R"(data: {"type":"content_block_stop","index":1})"
      "\n\n"
      "event: message_delta\n"
      R"(data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}})"
      "\n\n"
      "event: message_stop\n"
      R"(data: {"type":"message_stop"})"
      "\n\n");
  std::string error;
  r->append_error(error);
  EXPECT_EQ(
      error,
      "event: error\n"
      R"(data: {"type":"error","error":{"type":"overloaded_error","message":"Simulated server error in the middle of the stream (error_event fault)."}})"
      "\n\n");
}

TEST(SimReplyRenderTest, MessagesWholeReply) {
  const ReplyShape shape = small_shape(FinishReason::kLength);
  auto r = make_reply_renderer(ApiKind::kMessages);
  r->reset({ApiKind::kMessages, "msg_1", 7, "m"}, shape);
  std::string out;
  r->append_whole(out, nullptr);
  EXPECT_EQ(
      out,
      R"({"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"thinking","thinking":")" +
          words(shape, 0, 1) + R"("},{"type":"text","text":")" + words(shape, 1, 3) +
          R"("}],"stop_reason":"max_tokens","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":3}})");
}

TEST(SimReplyRenderTest, ResponsesStreamWithReasoning) {
  const ReplyShape shape = small_shape(FinishReason::kLength);
  auto r = make_reply_renderer(ApiKind::kResponses);
  r->reset({ApiKind::kResponses, "resp_1", 7, "m"}, shape);
  const std::string reasoning_item =
      R"({"id":"rs_1","type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":" a"}]})";
  const std::string message_item =
      R"({"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":" b c","annotations":[]}]})";
  EXPECT_EQ(
      stream(*r),
      "event: response.created\n"
      R"(data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":7,"status":"in_progress","model":"m","output":[]}})"
      "\n\n"
      "event: response.output_item.added\n"
      R"(data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[],"content":[]}})"
      "\n\n"
      "event: response.reasoning_text.delta\n"
      R"(data: {"type":"response.reasoning_text.delta","sequence_number":2,"item_id":"rs_1","output_index":0,"content_index":0,"delta":" a"})"
      "\n\n"
      "event: response.output_item.done\n"
      R"(data: {"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":)" +
          reasoning_item +
          "}\n\n"
          "event: response.output_item.added\n"
          R"(data: {"type":"response.output_item.added","sequence_number":4,"output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}})"
          "\n\n"
          "event: response.content_part.added\n"
          R"(data: {"type":"response.content_part.added","sequence_number":5,"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}})"
          "\n\n"
          "event: response.output_text.delta\n"
          R"(data: {"type":"response.output_text.delta","sequence_number":6,"item_id":"msg_1","output_index":1,"content_index":0,"delta":" b"})"
          "\n\n"
          "event: response.output_text.delta\n"
          R"(data: {"type":"response.output_text.delta","sequence_number":7,"item_id":"msg_1","output_index":1,"content_index":0,"delta":" c"})"
          "\n\n"
          "event: response.output_text.done\n"
          R"(data: {"type":"response.output_text.done","sequence_number":8,"item_id":"msg_1","output_index":1,"content_index":0,"text":" b c"})"
          "\n\n"
          "event: response.content_part.done\n"
          R"(data: {"type":"response.content_part.done","sequence_number":9,"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":" b c","annotations":[]}})"
          "\n\n"
          "event: response.output_item.done\n"
          R"(data: {"type":"response.output_item.done","sequence_number":10,"output_index":1,"item":)" +
          message_item +
          "}\n\n"
          "event: response.incomplete\n"
          R"(data: {"type":"response.incomplete","sequence_number":11,"response":{"id":"resp_1","object":"response","created_at":7,"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"model":"m","output":[)" +
          reasoning_item + "," + message_item +
          R"(],"usage":{"input_tokens":3,"output_tokens":3,"output_tokens_details":{"reasoning_tokens":1},"total_tokens":6}}})"
          "\n\n");
  std::string error;
  r->append_error(error);
  EXPECT_EQ(
      error,
      "event: error\n"
      R"(data: {"type":"error","sequence_number":12,"code":"server_error","message":"Simulated server error in the middle of the stream (error_event fault)."})"
      "\n\n");
}

TEST(SimReplyRenderTest, ResponsesWholeReply) {
  ReplyShape shape = small_shape(FinishReason::kStop);
  shape.reasoning_tokens = 0;
  auto r = make_reply_renderer(ApiKind::kResponses);
  r->reset({ApiKind::kResponses, "resp_1", 7, "m"}, shape);
  std::string out;
  r->append_whole(out, nullptr);
  EXPECT_EQ(
      out,
      R"({"id":"resp_1","object":"response","created_at":7,"status":"completed","model":"m","output":[{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":")" +
          words(shape, 0, 3) +
          R"(","annotations":[]}]}],"usage":{"input_tokens":3,"output_tokens":3,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":6}})");
}

TEST(SimReplyRenderTest, ChatReasoningAndToolCall) {
  ReplyShape shape = small_shape(FinishReason::kStop);
  shape.tool_name = "get_weather";
  shape.include_usage = true;
  auto r = make_reply_renderer(ApiKind::kChat);
  r->reset({ApiKind::kChat, "chatcmpl-1", 7, "m"}, shape);
  const std::string head =
      R"(data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"m","choices":[)";
  const std::string call_id = tool_call_id("chatcmpl-1");
  EXPECT_EQ(
      stream(*r),
      head + R"({"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})" +
          "\n\n" + head +
          R"({"index":0,"delta":{"reasoning_content":" a"},"finish_reason":null}]})" + "\n\n" +
          head + R"({"index":0,"delta":{"tool_calls":[{"index":0,"id":")" + call_id +
          R"(","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]})" +
          "\n\n" + head +
          R"({"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" b"}}]},"finish_reason":null}]})" +
          "\n\n" + head +
          R"({"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" c"}}]},"finish_reason":null}]})" +
          "\n\n" + head + R"({"index":0,"delta":{},"finish_reason":"tool_calls"}]})" + "\n\n" +
          head +
          R"(],"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6,"completion_tokens_details":{"reasoning_tokens":1}}})" +
          "\n\ndata: [DONE]\n\n");
  EXPECT_TRUE(call_id.starts_with("call_"));
  EXPECT_EQ(call_id.size(), 5u + 16u);

  std::string whole;
  r->append_whole(whole, nullptr);
  const json j = json::parse(whole);
  EXPECT_EQ(j["choices"][0]["message"]["reasoning_content"], words(shape, 0, 1));
  EXPECT_TRUE(j["choices"][0]["message"]["content"].is_null());
  EXPECT_EQ(j["choices"][0]["message"]["tool_calls"][0]["id"], call_id);
  EXPECT_EQ(j["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
            words(shape, 1, 3));
  EXPECT_EQ(j["choices"][0]["finish_reason"], "tool_calls");
  EXPECT_EQ(j["usage"]["completion_tokens_details"]["reasoning_tokens"], 1);
}

TEST(SimReplyRenderTest, Embeddings) {
  const std::uint64_t hashes[] = {1, 2};
  ReplyShape shape;
  shape.prompt_tokens = 5;
  shape.input_hashes = hashes;
  shape.embedding_dim = 4;
  auto r = make_reply_renderer(ApiKind::kEmbeddings);
  r->reset({ApiKind::kEmbeddings, "embd-1", 7, "m"}, shape);
  std::string out;
  r->append_whole(out, nullptr);
  const json j = json::parse(out);
  EXPECT_EQ(j["object"], "list");
  EXPECT_EQ(j["model"], "m");
  ASSERT_EQ(j["data"].size(), 2u);
  EXPECT_EQ(j["data"][1]["index"], 1);
  EXPECT_EQ(j["data"][1]["embedding"].size(), 4u);
  EXPECT_EQ(j["usage"], json::parse(R"({"prompt_tokens":5,"total_tokens":5})"));
  std::string again;
  r->append_whole(again, nullptr);
  EXPECT_EQ(again, out);
}

TEST(SimReplyRenderTest, AnthropicErrorShape) {
  EXPECT_EQ(api_error_body(ApiKind::kMessages, 404, "invalid_request_error", "no \"x\""),
            R"({"type":"error","error":{"type":"not_found_error","message":"no \"x\""}})");
  EXPECT_EQ(
      json::parse(api_error_body(ApiKind::kMessages, 503, "server_error", "m"))["error"]["type"],
      "overloaded_error");
  EXPECT_EQ(json::parse(api_error_body(ApiKind::kResponses, 401, "invalid_request_error",
                                       "m"))["error"]["code"],
            401);
}

}  // namespace
}  // namespace tokenbench::sim
