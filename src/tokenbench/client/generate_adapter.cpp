// SGLang's native API (POST /generate; python/sglang/srt/entrypoints/http_server.py, and the
// request its own bench_serving.py sends for --backend sglang, sgl-project/sglang at 0033168f):
// the prompt as "text", the output limit and ignore_eos in "sampling_params", with the sampling
// fields of --extra-body moved there. A streamed reply's events each carry the
// whole text generated so far (not a delta) and meta_info.completion_tokens, the tokens so far;
// the worker takes each event's new part (ApiEvent::cumulative_text), and the running count says
// how many tokens each event carried. A LoRA adapter of the run's mix is "lora_path".

#include <nlohmann/json.hpp>
#include <string>

#include "tokenbench/client/api_dialects.h"
#include "tokenbench/core/text.h"

namespace tokenbench::client {
namespace {

using simdjson::dom::element;

// The sampling fields that --extra-body (and --temperature, --top-p, --top-k) give at the top of
// the body, which /generate takes inside sampling_params (SGLang's SamplingParams).
constexpr const char* kSamplingKeys[] = {
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "frequency_penalty",
    "presence_penalty",
    "repetition_penalty",
    "stop",
    "stop_token_ids",
    "n",
    "seed",
    "max_new_tokens",
    "min_new_tokens",
    "ignore_eos",
    "skip_special_tokens",
    "json_schema",
    "regex",
    "ebnf",
    "no_stop_trim",
    "spaces_between_special_tokens",
};

class GenerateAdapter : public ApiAdapter {
 public:
  std::string build_body(const core::RequestSpec& spec, const BodyOptions& options) const override {
    nlohmann::json body = nlohmann::json::object();
    body["text"] = spec.prompt;
    nlohmann::json params = nlohmann::json::object();
    // As SGLang's bench_serving sends them: ignore_eos alone makes the length exact there.
    if (spec.max_tokens > 0) params["max_new_tokens"] = spec.max_tokens;
    params["ignore_eos"] = options.ignore_eos;
    body["sampling_params"] = std::move(params);
    body["stream"] = options.stream;
    if (spec.mix >= 0 && !options.model.empty()) body["lora_path"] = options.model;
    BodyOptions rest = options;
    rest.model.clear();  // /generate names no model: the server serves one
    nlohmann::json merged = merged_body(std::move(body), rest);
    for (const char* key : kSamplingKeys) {
      if (const auto it = merged.find(key); it != merged.end()) {
        merged["sampling_params"][key] = *it;
        merged.erase(key);
      }
    }
    return merged.dump();
  }

  ApiEvent parse_event(std::string_view data) override {
    if (data == "[DONE]") {
      ApiEvent done;
      done.kind = ApiEvent::Kind::kDone;
      return done;
    }
    ApiEvent ev = parse(data);
    ev.cumulative_text = true;
    return ev;
  }

  ApiEvent parse_response(std::string_view body) override { return parse(body); }

 private:
  ApiEvent parse(std::string_view json) {
    ApiEvent ev;
    element root;
    if (!parse_object(json, root, ev) || error_in(root, ev)) return ev;
    ev.content_text = string_field(root, "text");
    ev.content_bytes = static_cast<std::int64_t>(ev.content_text.size());
    element meta;
    if (root["meta_info"].get(meta) != simdjson::SUCCESS || !meta.is_object()) return ev;
    ev.response_id = string_field(meta, "id");
    ev.prompt_tokens = count_field(meta, "prompt_tokens");
    ev.completion_tokens = count_field(meta, "completion_tokens");
    ev.cached_tokens = count_field(meta, "cached_tokens");
    ev.has_usage = ev.completion_tokens >= 0;
    element finish;
    if (meta["finish_reason"].get(finish) == simdjson::SUCCESS && finish.is_object()) {
      set_finish(ev, string_field(finish, "type"));
    }
    return ev;
  }
};

}  // namespace

std::unique_ptr<ApiAdapter> make_generate_adapter() { return std::make_unique<GenerateAdapter>(); }

}  // namespace tokenbench::client
