// Anthropic Messages replies. The stream follows Anthropic's public documentation of streaming
// Messages (docs.anthropic.com, "Streaming Messages"): each event is
// `event: <type>\ndata: <json>\n\n`; message_start, then per content block content_block_start,
// content_block_delta per token and content_block_stop, then message_delta (stop_reason, output
// usage) and message_stop. Not sent: ping events and thinking blocks' signature_delta.

#include <fmt/format.h>

#include <iterator>
#include <memory>
#include <string>

#include "tokenbench/sim/reply_renderer.h"

namespace tokenbench::sim {
namespace {

constexpr std::string_view kDeltaSuffix = "\"}}\n\n";

std::string_view stop_reason(FinishReason finish) {
  return finish == FinishReason::kStop ? "end_turn" : "max_tokens";
}

class MessagesRenderer final : public ReplyRenderer {
 public:
  void reset(const ResponseIdentity& identity, const ReplyShape& shape) override {
    identity_ = identity;
    shape_ = &shape;
    text_index_ = shape.reasoning_tokens > 0 ? 1 : 0;
    thinking_prefix_ =
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
        "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"";
    text_prefix_.clear();
    fmt::format_to(std::back_inserter(text_prefix_),
                   "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\","
                   "\"index\":{},\"delta\":{{\"type\":\"text_delta\",\"text\":\"",
                   text_index_);
  }

  void append_start(std::string& out) override {
    out += "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"";
    out += identity_.id;
    out += "\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"";
    out += identity_.model;
    fmt::format_to(std::back_inserter(out),
                   "\",\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{{\"input_tokens\":{},"
                   "\"output_tokens\":0}}}}}}\n\n",
                   shape_->prompt_tokens);
  }

  void append_token(std::string& out, std::int64_t index, std::string_view text) override {
    const std::int64_t reasoning = shape_->reasoning_tokens;
    if (index < reasoning) {
      if (index == 0) append_block_start(out, 0, "{\"type\":\"thinking\",\"thinking\":\"\"}");
      out += thinking_prefix_;
    } else {
      if (index == reasoning) {
        if (reasoning > 0) append_block_stop(out, 0);
        append_block_start(out, text_index_, "{\"type\":\"text\",\"text\":\"\"}");
      }
      out += text_prefix_;
    }
    out += text;
    out += kDeltaSuffix;
  }

  void append_end(std::string& out, const LlamaTimings*) override {
    // The open block: the text block, or the thinking block when every token was reasoning.
    if (shape_->output_tokens > 0) {
      append_block_stop(out, shape_->output_tokens > shape_->reasoning_tokens ? text_index_ : 0);
    }
    out += "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"";
    out += stop_reason(shape_->finish);
    fmt::format_to(std::back_inserter(out), "\",\"stop_sequence\":null}},\"usage\":{{");
    // The prefix cache is known once the prompt is processed: after message_start, so said here
    // (the API's message_delta usage carries the input and cache counts too).
    append_cache_usage(out, *shape_);
    fmt::format_to(std::back_inserter(out), "\"output_tokens\":{}}}}}\n\n", shape_->output_tokens);
    out += "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  }

  void append_error(std::string& out) override {
    out +=
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
        "\"message\":\"Simulated server error in the middle of the stream (error_event "
        "fault).\"}}\n\n";
  }

  void append_malformed(std::string& out) override {
    out +=
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\", this is not JSON\n\n";
  }

  void append_whole(std::string& out, const LlamaTimings*) override {
    const ReplyShape& s = *shape_;
    out += "{\"id\":\"";
    out += identity_.id;
    out += "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"";
    out += identity_.model;
    out += "\",\"content\":[";
    if (s.reasoning_tokens > 0) {
      out += "{\"type\":\"thinking\",\"thinking\":\"";
      for (std::int64_t i = 0; i < s.reasoning_tokens; ++i) {
        out += token_text(s.seed, s.arrival, i);
      }
      out += "\"}";
      if (s.output_tokens > s.reasoning_tokens) out += ',';
    }
    if (s.output_tokens > s.reasoning_tokens) {
      out += "{\"type\":\"text\",\"text\":\"";
      for (std::int64_t i = s.reasoning_tokens; i < s.output_tokens; ++i) {
        out += token_text(s.seed, s.arrival, i);
      }
      out += "\"}";
    }
    out += "],\"stop_reason\":\"";
    out += stop_reason(s.finish);
    out += "\",\"stop_sequence\":null,\"usage\":{";
    if (s.cached_tokens < 0)
      fmt::format_to(std::back_inserter(out), "\"input_tokens\":{},", s.prompt_tokens);
    append_cache_usage(out, s);
    fmt::format_to(std::back_inserter(out), "\"output_tokens\":{}}}}}", s.output_tokens);
  }

 private:
  // With the prefix cache's count: input_tokens leaves out the cached tokens, which
  // cache_read_input_tokens gives (cache_creation_input_tokens: none, the simulator's cache
  // needs no breakpoints); each key followed by a comma.
  static void append_cache_usage(std::string& out, const ReplyShape& s) {
    if (s.cached_tokens < 0) return;
    fmt::format_to(std::back_inserter(out),
                   "\"input_tokens\":{},\"cache_creation_input_tokens\":0,"
                   "\"cache_read_input_tokens\":{},",
                   s.prompt_tokens - s.cached_tokens, s.cached_tokens);
  }

  static void append_block_start(std::string& out, int index, std::string_view block) {
    fmt::format_to(std::back_inserter(out),
                   "event: content_block_start\ndata: {{\"type\":\"content_block_start\","
                   "\"index\":{},\"content_block\":{}}}\n\n",
                   index, block);
  }

  static void append_block_stop(std::string& out, int index) {
    fmt::format_to(std::back_inserter(out),
                   "event: content_block_stop\ndata: {{\"type\":\"content_block_stop\","
                   "\"index\":{}}}\n\n",
                   index);
  }

  ResponseIdentity identity_;
  const ReplyShape* shape_ = nullptr;
  int text_index_ = 0;
  std::string thinking_prefix_;
  std::string text_prefix_;
};

}  // namespace

std::unique_ptr<ReplyRenderer> make_messages_renderer() {
  return std::make_unique<MessagesRenderer>();
}

}  // namespace tokenbench::sim
