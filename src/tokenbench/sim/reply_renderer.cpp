#include "tokenbench/sim/reply_renderer.h"

namespace tokenbench::sim {
namespace {

// Anthropic's error types (docs.anthropic.com, "Errors"), by HTTP status.
std::string_view anthropic_error_type(int status) {
  switch (status) {
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 500:
      return "api_error";
    case 503:
    case 529:
      return "overloaded_error";
    default:
      return "invalid_request_error";
  }
}

}  // namespace

std::unique_ptr<ReplyRenderer> make_reply_renderer(ApiKind api) {
  switch (api) {
    case ApiKind::kMessages:
      return make_messages_renderer();
    case ApiKind::kResponses:
      return make_responses_renderer();
    case ApiKind::kEmbeddings:
      return make_embeddings_renderer();
    case ApiKind::kRerank:
      return make_rerank_renderer();
    case ApiKind::kScore:
      return make_score_renderer();
    case ApiKind::kGenerate:
      return make_generate_renderer();
    default:
      return make_openai_renderer();
  }
}

std::string api_error_body(ApiKind api, int status, std::string_view type,
                           std::string_view message) {
  if (api != ApiKind::kMessages) return error_body(status, type, message);
  std::string out = "{\"type\":\"error\",\"error\":{\"type\":\"";
  out += anthropic_error_type(status);
  out += "\",\"message\":\"";
  append_json_escaped(out, message);
  out += "\"}}";
  return out;
}

}  // namespace tokenbench::sim
