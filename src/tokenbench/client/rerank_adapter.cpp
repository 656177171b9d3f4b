// Rerank and score (docs/WORKLOADS.md, "Rerank and score"): a request is a query (the
// workload's prompt) and --documents documents (RequestSpec::more_inputs); the reply, never
// streamed, carries a score per document and a usage object.
//   rerank: {"model", "query", "documents": [...]} -> {"results": [{"index",
//           "relevance_score", ...}], "usage": {"total_tokens"}}; TEI's bare array of
//           {"index", "score"} is read too
//   score:  {"model", "text_1": query, "text_2": [...]} -> {"data": [{"index", "score"}],
//           "usage": {"prompt_tokens"}}

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "tokenbench/client/api_dialects.h"
#include "tokenbench/core/text.h"

namespace tokenbench::client {
namespace {

using simdjson::dom::element;

class RerankAdapter : public ApiAdapter {
 public:
  explicit RerankAdapter(core::ApiKind api) : rerank_(api == core::ApiKind::kRerank) {}

  std::string build_body(const core::RequestSpec& spec, const BodyOptions& options) const override {
    nlohmann::json body = nlohmann::json::object();
    body["model"] = options.model;
    nlohmann::json documents = nlohmann::json::array();
    for (const auto& text : spec.more_inputs) documents.push_back(text);
    if (rerank_) {
      body["query"] = spec.prompt;
      body["documents"] = std::move(documents);
    } else {
      body["text_1"] = spec.prompt;
      body["text_2"] = std::move(documents);
    }
    return finish_body(std::move(body), options);
  }

  ApiEvent parse_event(std::string_view data) override {
    ApiEvent ev;
    ev.kind = ApiEvent::Kind::kMalformed;
    error_.assign(rerank_ ? "a rerank" : "a score");
    error_.append(" endpoint answered with an event stream: ");
    error_.append(core::utf8_prefix(data, 80));
    ev.error_message = error_;
    return ev;
  }

  ApiEvent parse_response(std::string_view body) override {
    ApiEvent ev;
    // The parser of every adapter (its depth bound), on a padded copy: TEI's reply is an array,
    // which parse_object refuses.
    const std::size_t need = body.size() + simdjson::SIMDJSON_PADDING;
    if (padded_.size() < need) padded_.resize(std::max(need, padded_.size() * 2));
    std::memcpy(padded_.data(), body.data(), body.size());
    element root;
    if (parser_.parse(padded_.data(), body.size(), false).get(root) != simdjson::SUCCESS) {
      return malformed(ev, "the reply is not JSON (or nested too deep): ", body);
    }
    if (root.is_array()) return scores_of(root, "score", ev);  // TEI's /rerank
    if (!root.is_object()) return malformed(ev, "the reply is not a JSON object: ", body);
    if (error_in(root, ev)) return ev;
    ev.response_id = string_field(root, "id");
    element list;
    const char* key = rerank_ ? "results" : "data";
    if (root[key].get(list) != simdjson::SUCCESS || !list.is_array()) {
      error_.assign("the reply has no '");
      error_.append(key);
      error_.append("' list: ");
      error_.append(core::utf8_prefix(body, 80));
      ev.kind = ApiEvent::Kind::kMalformed;
      ev.error_message = error_;
      return ev;
    }
    scores_of(list, rerank_ ? "relevance_score" : "score", ev);
    element usage;
    if (root["usage"].get(usage) == simdjson::SUCCESS && usage.is_object()) {
      ev.prompt_tokens = count_field(usage, "prompt_tokens");
      if (ev.prompt_tokens < 0) ev.prompt_tokens = count_field(usage, "total_tokens");
      ev.has_usage = ev.prompt_tokens >= 0;
    }
    return ev;
  }

 private:
  // The items of `list` that carry a numeric `field`: each a document scored.
  ApiEvent& scores_of(element list, const char* field, ApiEvent& ev) {
    for (element item : list.get_array()) {
      element score;
      if (item.is_object() && item[field].get(score) == simdjson::SUCCESS && score.is_number()) {
        ++ev.embeddings;
      }
    }
    return ev;
  }

  ApiEvent& malformed(ApiEvent& ev, const char* what, std::string_view body) {
    error_.assign(what);
    error_.append(core::utf8_prefix(body, 80));
    ev.kind = ApiEvent::Kind::kMalformed;
    ev.error_message = error_;
    return ev;
  }

  bool rerank_;
};

}  // namespace

std::unique_ptr<ApiAdapter> make_rerank_adapter(core::ApiKind api) {
  return std::make_unique<RerankAdapter>(api);
}

}  // namespace tokenbench::client
