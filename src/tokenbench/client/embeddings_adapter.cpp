// OpenAI's embeddings API (POST /v1/embeddings): a request embeds one input or a batch
// (--batch-size); the reply is never streamed and carries one vector per input and a usage
// object with prompt_tokens.

#include <nlohmann/json.hpp>
#include <string>

#include "tokenbench/client/api_dialects.h"
#include "tokenbench/core/text.h"

namespace tokenbench::client {
namespace {

using simdjson::dom::element;

class EmbeddingsAdapter : public ApiAdapter {
 public:
  std::string build_body(const core::RequestSpec& spec, const BodyOptions& options) const override {
    nlohmann::json body = nlohmann::json::object();
    if (spec.more_inputs.empty()) {
      body["input"] = spec.prompt;
    } else {
      nlohmann::json inputs = nlohmann::json::array({spec.prompt});
      for (const auto& text : spec.more_inputs) inputs.push_back(text);
      body["input"] = std::move(inputs);
    }
    body["encoding_format"] = "float";
    return finish_body(std::move(body), options);
  }

  // A server that streams anyway is not an embeddings API.
  ApiEvent parse_event(std::string_view data) override {
    ApiEvent ev;
    ev.kind = ApiEvent::Kind::kMalformed;
    error_.assign("an embeddings endpoint answered with an event stream: ");
    error_.append(core::utf8_prefix(data, 80));
    ev.error_message = error_;
    return ev;
  }

  ApiEvent parse_response(std::string_view body) override {
    ApiEvent ev;
    element root;
    if (!parse_object(body, root, ev) || error_in(root, ev)) return ev;
    ev.response_id = string_field(root, "id");
    element data;
    if (root["data"].get(data) == simdjson::SUCCESS && data.is_array()) {
      for (element item : data.get_array()) {
        element vector;
        if (item["embedding"].get(vector) == simdjson::SUCCESS) ++ev.embeddings;
      }
    }
    element usage;
    if (root["usage"].get(usage) == simdjson::SUCCESS && usage.is_object()) {
      ev.prompt_tokens = count_field(usage, "prompt_tokens");
      ev.has_usage = ev.prompt_tokens >= 0;
    }
    return ev;
  }
};

}  // namespace

std::unique_ptr<ApiAdapter> make_embeddings_adapter() {
  return std::make_unique<EmbeddingsAdapter>();
}

}  // namespace tokenbench::client
