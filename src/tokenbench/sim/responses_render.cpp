// OpenAI Responses replies. The stream follows OpenAI's public API reference for Responses
// streaming events (platform.openai.com/docs/api-reference/responses-streaming): each event is
// `event: <type>\ndata: <json>\n\n` with a sequence_number counting from 0, and no [DONE].
// response.created; for reasoning tokens a "reasoning" output item (output_item.added,
// reasoning_text.delta per token, output_item.done); a "message" item (output_item.added,
// content_part.added, output_text.delta per token, output_text.done, content_part.done,
// output_item.done); then response.completed, or response.incomplete (status "incomplete",
// incomplete_details.reason "max_output_tokens") when max_output_tokens cut the reply.

#include <fmt/format.h>

#include <iterator>
#include <memory>
#include <string>

#include "tokenbench/sim/reply_renderer.h"

namespace tokenbench::sim {
namespace {

class ResponsesRenderer final : public ReplyRenderer {
 public:
  void reset(const ResponseIdentity& identity, const ReplyShape& shape) override {
    identity_ = identity;
    shape_ = &shape;
    sequence_ = 0;
    std::string_view suffix = identity.id;
    if (suffix.starts_with("resp_")) suffix.remove_prefix(5);
    reasoning_id_ = "rs_";
    reasoning_id_ += suffix;
    message_id_ = "msg_";
    message_id_ += suffix;
    message_index_ = shape.reasoning_tokens > 0 ? 1 : 0;
    reasoning_text_.clear();
    output_text_.clear();
    reasoning_prefix_ = "\",\"output_index\":0,\"content_index\":0,\"delta\":\"";
    text_prefix_.clear();
    fmt::format_to(std::back_inserter(text_prefix_),
                   "\",\"output_index\":{},\"content_index\":0,\"delta\":\"", message_index_);
  }

  void append_start(std::string& out) override {
    open_event(out, "response.created");
    out += ",\"response\":";
    append_response(out, "in_progress", /*with_output=*/false);
    out += "}\n\n";
  }

  void append_token(std::string& out, std::int64_t index, std::string_view text) override {
    const std::int64_t reasoning = shape_->reasoning_tokens;
    if (index < reasoning) {
      if (index == 0) {
        open_event(out, "response.output_item.added");
        out += ",\"output_index\":0,\"item\":";
        append_reasoning_item(out, /*with_text=*/false);
        out += "}\n\n";
      }
      open_event(out, "response.reasoning_text.delta");
      out += ",\"item_id\":\"";
      out += reasoning_id_;
      out += reasoning_prefix_;
      reasoning_text_ += text;
    } else {
      if (index == reasoning) {
        if (reasoning > 0) close_reasoning(out);
        open_event(out, "response.output_item.added");
        fmt::format_to(std::back_inserter(out), ",\"output_index\":{},\"item\":", message_index_);
        append_message_item(out, /*done=*/false);
        out += "}\n\n";
        open_event(out, "response.content_part.added");
        append_part_location(out);
        out += ",\"part\":{\"type\":\"output_text\",\"text\":\"\",\"annotations\":[]}}\n\n";
      }
      open_event(out, "response.output_text.delta");
      out += ",\"item_id\":\"";
      out += message_id_;
      out += text_prefix_;
      output_text_ += text;
    }
    out += text;
    out += "\"}\n\n";
  }

  void append_end(std::string& out, const LlamaTimings*) override {
    if (shape_->output_tokens > shape_->reasoning_tokens) {
      open_event(out, "response.output_text.done");
      append_part_location(out);
      out += ",\"text\":\"";
      out += output_text_;
      out += "\"}\n\n";
      open_event(out, "response.content_part.done");
      append_part_location(out);
      out += ",\"part\":";
      append_text_part(out);
      out += "}\n\n";
      open_event(out, "response.output_item.done");
      fmt::format_to(std::back_inserter(out), ",\"output_index\":{},\"item\":", message_index_);
      append_message_item(out, /*done=*/true);
      out += "}\n\n";
    } else if (shape_->output_tokens > 0) {
      close_reasoning(out);
    }
    const bool complete = shape_->finish == FinishReason::kStop;
    open_event(out, complete ? "response.completed" : "response.incomplete");
    out += ",\"response\":";
    append_response(out, complete ? "completed" : "incomplete", /*with_output=*/true);
    out += "}\n\n";
  }

  void append_error(std::string& out) override {
    open_event(out, "error");
    out +=
        ",\"code\":\"server_error\",\"message\":\"Simulated server error in the middle of the "
        "stream (error_event fault).\"}\n\n";
  }

  void append_malformed(std::string& out) override {
    out +=
        "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\", "
        "this is not JSON\n\n";
  }

  void append_whole(std::string& out, const LlamaTimings*) override {
    const ReplyShape& s = *shape_;
    reasoning_text_.clear();
    output_text_.clear();
    for (std::int64_t i = 0; i < s.output_tokens; ++i) {
      (i < s.reasoning_tokens ? reasoning_text_ : output_text_) += token_text(s.seed, s.arrival, i);
    }
    append_response(out, s.finish == FinishReason::kStop ? "completed" : "incomplete",
                    /*with_output=*/true);
  }

 private:
  // `event: TYPE\ndata: {"type":"TYPE","sequence_number":K` (the object left open).
  void open_event(std::string& out, std::string_view type) {
    fmt::format_to(std::back_inserter(out),
                   "event: {}\ndata: {{\"type\":\"{}\",\"sequence_number\":{}", type, type,
                   sequence_++);
  }

  void append_part_location(std::string& out) const {
    out += ",\"item_id\":\"";
    out += message_id_;
    fmt::format_to(std::back_inserter(out), "\",\"output_index\":{},\"content_index\":0",
                   message_index_);
  }

  void close_reasoning(std::string& out) {
    open_event(out, "response.output_item.done");
    out += ",\"output_index\":0,\"item\":";
    append_reasoning_item(out, /*with_text=*/true);
    out += "}\n\n";
  }

  void append_reasoning_item(std::string& out, bool with_text) const {
    out += "{\"id\":\"";
    out += reasoning_id_;
    out += "\",\"type\":\"reasoning\",\"summary\":[],\"content\":[";
    if (with_text) {
      out += "{\"type\":\"reasoning_text\",\"text\":\"";
      out += reasoning_text_;
      out += "\"}";
    }
    out += "]}";
  }

  void append_text_part(std::string& out) const {
    out += "{\"type\":\"output_text\",\"text\":\"";
    out += output_text_;
    out += "\",\"annotations\":[]}";
  }

  void append_message_item(std::string& out, bool done) const {
    out += "{\"id\":\"";
    out += message_id_;
    out += done ? "\",\"type\":\"message\",\"status\":\"completed\",\"role\":\"assistant\","
                  "\"content\":["
                : "\",\"type\":\"message\",\"status\":\"in_progress\",\"role\":\"assistant\","
                  "\"content\":[";
    if (done) append_text_part(out);
    out += "]}";
  }

  // The response object; with_output: its output items and usage (a finished response).
  void append_response(std::string& out, std::string_view status, bool with_output) const {
    const ReplyShape& s = *shape_;
    out += "{\"id\":\"";
    out += identity_.id;
    fmt::format_to(std::back_inserter(out),
                   "\",\"object\":\"response\",\"created_at\":{},\"status\":\"{}\",",
                   identity_.created, status);
    if (status == "incomplete") {
      out += "\"incomplete_details\":{\"reason\":\"max_output_tokens\"},";
    }
    out += "\"model\":\"";
    out += identity_.model;
    out += "\",\"output\":[";
    if (with_output) {
      if (s.reasoning_tokens > 0) append_reasoning_item(out, /*with_text=*/true);
      if (s.output_tokens > s.reasoning_tokens) {
        if (s.reasoning_tokens > 0) out += ',';
        append_message_item(out, /*done=*/true);
      }
    }
    out += ']';
    if (with_output) {
      fmt::format_to(std::back_inserter(out), ",\"usage\":{{\"input_tokens\":{},", s.prompt_tokens);
      if (s.cached_tokens >= 0) {
        fmt::format_to(std::back_inserter(out),
                       "\"input_tokens_details\":{{\"cached_tokens\":{}}},", s.cached_tokens);
      }
      fmt::format_to(std::back_inserter(out),
                     "\"output_tokens\":{},\"output_tokens_details\":{{\"reasoning_tokens\":{}}},"
                     "\"total_tokens\":{}}}",
                     s.output_tokens, s.reasoning_tokens, s.prompt_tokens + s.output_tokens);
    }
    out += '}';
  }

  ResponseIdentity identity_;
  const ReplyShape* shape_ = nullptr;
  std::int64_t sequence_ = 0;
  int message_index_ = 0;
  std::string reasoning_id_;
  std::string message_id_;
  std::string reasoning_prefix_;
  std::string text_prefix_;
  std::string reasoning_text_;  ///< the reasoning tokens so far, for the done events
  std::string output_text_;     ///< the output text so far, for the done events
};

}  // namespace

std::unique_ptr<ReplyRenderer> make_responses_renderer() {
  return std::make_unique<ResponsesRenderer>();
}

}  // namespace tokenbench::sim
