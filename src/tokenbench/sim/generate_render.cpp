// SGLang's native /generate replies (python/sglang/srt/entrypoints/http_server.py): a stream of
//   data: {"text":T,"output_ids":[],"meta_info":{"id":I,"finish_reason":null,
//          "prompt_tokens":P,"completion_tokens":N,"cached_tokens":C}}\n\n
// one event per token, T the whole text generated so far (SGLang's default; not a delta) and N
// the tokens so far; the last token's event carries finish_reason {"type":"length","length":N}
// (or {"type":"stop","matched":null}), and `data: [DONE]` ends the stream. A whole reply is the
// last event's object. An error mid-stream is `data: {"error":{"message":...}}`.

#include <fmt/format.h>

#include <iterator>
#include <memory>
#include <string>

#include "tokenbench/sim/reply_renderer.h"

namespace tokenbench::sim {
namespace {

class GenerateRenderer final : public ReplyRenderer {
 public:
  void reset(const ResponseIdentity& identity, const ReplyShape& shape) override {
    identity_ = identity;
    shape_ = &shape;
    text_.clear();
    done_ = 0;
  }

  void append_start(std::string&) override {}

  void append_token(std::string& out, std::int64_t index, std::string_view text) override {
    append_tokens(out, index, 1, text);
  }

  void append_tokens(std::string& out, std::int64_t first, std::int64_t count,
                     std::string_view text) override {
    text_ += text;
    done_ = first + count;
    // The last token's event says why the reply ended, as SGLang's does.
    const bool last = done_ >= shape_->output_tokens;
    out += "data: ";
    append_object(out, last);
    out += "\n\n";
  }

  void append_end(std::string& out, const LlamaTimings*) override {
    if (done_ < shape_->output_tokens || shape_->output_tokens == 0) {
      out += "data: ";
      append_object(out, /*finished=*/true);
      out += "\n\n";
    }
    out += "data: [DONE]\n\n";
  }

  void append_error(std::string& out) override {
    out += "data: {\"error\":{\"message\":\"the simulated engine failed mid-stream\"}}\n\n";
    out += "data: [DONE]\n\n";
  }

  void append_malformed(std::string& out) override { out += "data: {\"text\": not JSON\n\n"; }

  void append_whole(std::string& out, const LlamaTimings*) override {
    const ReplyShape& s = *shape_;
    text_.clear();
    for (std::int64_t i = 0; i < s.output_tokens; ++i) text_ += token_text(s.seed, s.arrival, i);
    done_ = s.output_tokens;
    append_object(out, /*finished=*/true);
  }

 private:
  void append_object(std::string& out, bool finished) const {
    out += "{\"text\":\"";
    out += text_;  // the vocabulary's words: nothing to escape
    out += "\",\"output_ids\":[],\"meta_info\":{\"id\":\"";
    out += identity_.id;
    out += "\",\"finish_reason\":";
    if (!finished) {
      out += "null";
    } else if (shape_->finish == FinishReason::kStop) {
      out += "{\"type\":\"stop\",\"matched\":null}";
    } else {
      fmt::format_to(std::back_inserter(out), "{{\"type\":\"length\",\"length\":{}}}", done_);
    }
    fmt::format_to(std::back_inserter(out), ",\"prompt_tokens\":{},\"completion_tokens\":{}",
                   shape_->prompt_tokens, done_);
    if (shape_->cached_tokens >= 0) {
      fmt::format_to(std::back_inserter(out), ",\"cached_tokens\":{}", shape_->cached_tokens);
    }
    out += "}}";
  }

  ResponseIdentity identity_;
  const ReplyShape* shape_ = nullptr;
  std::string text_;  // the text generated so far
  std::int64_t done_ = 0;
};

}  // namespace

std::unique_ptr<ReplyRenderer> make_generate_renderer() {
  return std::make_unique<GenerateRenderer>();
}

}  // namespace tokenbench::sim
