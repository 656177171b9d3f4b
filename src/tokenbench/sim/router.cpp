#include "tokenbench/sim/router.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "tokenbench/core/json_parse.h"
#include "tokenbench/sim/generate_request.h"
#include "tokenbench/sim/lora_slots.h"
#include "tokenbench/sim/messages_request.h"
#include "tokenbench/sim/reply_renderer.h"
#include "tokenbench/sim/request_fields.h"
#include "tokenbench/sim/rerank_request.h"
#include "tokenbench/sim/sim_rng.h"

namespace tokenbench::sim {
namespace {

std::string_view path_of(std::string_view target) {
  if (const auto q = target.find('?'); q != std::string_view::npos) return target.substr(0, q);
  return target;
}

std::optional<ApiKind> generation_api(std::string_view path) {
  if (path == "/v1/chat/completions") return ApiKind::kChat;
  if (path == "/v1/completions") return ApiKind::kCompletions;
  if (path == "/v1/messages") return ApiKind::kMessages;
  if (path == "/v1/responses") return ApiKind::kResponses;
  if (path == "/v1/embeddings") return ApiKind::kEmbeddings;
  if (path == "/v1/rerank" || path == "/rerank" || path == "/v2/rerank") return ApiKind::kRerank;
  if (path == "/v1/score" || path == "/score") return ApiKind::kScore;
  if (path == "/generate") return ApiKind::kGenerate;
  return std::nullopt;
}

ErrorReply error(ApiKind api, int status, std::string_view type, std::string_view message) {
  return {status, api_error_body(api, status, type, message)};
}

ErrorReply method_not_allowed(ApiKind api) {
  return error(api, 405, "invalid_request_error", "This method is not allowed on this path.");
}

bool authorized(const HttpRequestView& r, std::string_view key) {
  constexpr std::string_view kBearer = "Bearer ";
  if (r.authorization.size() == kBearer.size() + key.size() &&
      r.authorization.starts_with(kBearer) && r.authorization.substr(kBearer.size()) == key) {
    return true;
  }
  return r.x_api_key == key;
}

std::variant<CompletionRequest, RequestError> parse(ApiKind api, const HttpRequestView& r,
                                                    const RouterConfig& c) {
  switch (api) {
    case ApiKind::kMessages:
      return parse_messages_request(r.body, c.model, c.hash_block_size);
    case ApiKind::kResponses:
      return parse_responses_request(r.body, c.model, c.default_max_tokens, c.hash_block_size);
    case ApiKind::kEmbeddings:
      return parse_embeddings_request(r.body, c.model);
    case ApiKind::kRerank:
      return parse_rerank_request(r.body, c.model);
    case ApiKind::kScore:
      return parse_score_request(r.body, c.model);
    case ApiKind::kGenerate:
      return parse_generate_request(r.body, c.default_max_tokens, c.hash_block_size);
    default:
      return parse_completion_request(api, r.body, c.model, c.default_max_tokens,
                                      c.hash_block_size);
  }
}

// The LoRA adapter a body's "model" names, or -1 (the base model, another name, or a body the
// parser will refuse). A second parse of the body, paid only when adapters are served.
std::int32_t requested_lora(std::string_view body, std::int64_t adapters) {
  if (adapters <= 0) return -1;
  const auto json = core::parse_json_or_discarded(body);
  if (json.is_discarded() || !json.is_object()) return -1;
  const auto model = json.find("model");
  if (model == json.end() || !model->is_string()) return -1;
  return lora_index(model->get_ref<const std::string&>(), adapters);
}

}  // namespace

ApiKind error_api_of(std::string_view target) {
  return path_of(target) == "/v1/messages" ? ApiKind::kMessages : ApiKind::kChat;
}

RoutedRequest route_request(const HttpRequestView& r, const RouterConfig& c) {
  const std::string_view path = path_of(r.target);
  const bool get = r.method == "GET";
  if (path == "/health" || path == "/version" || path == "/metrics") {  // open without a key
    if (!get) return method_not_allowed(ApiKind::kChat);
    if (path == "/health") return InfoEndpoint::kHealth;
    return path == "/version" ? InfoEndpoint::kVersion : InfoEndpoint::kMetrics;
  }
  // The engines' admin endpoints (vLLM's and SGLang's paths), open without a key as /health is.
  if (path == "/reset_prefix_cache" || path == "/flush_cache" || path == "/start_profile" ||
      path == "/stop_profile") {
    if (r.method != "POST") return method_not_allowed(ApiKind::kChat);
    if (path == "/start_profile") return InfoEndpoint::kStartProfile;
    return path == "/stop_profile" ? InfoEndpoint::kStopProfile : InfoEndpoint::kResetPrefixCache;
  }
  const bool models = path == "/v1/models";
  const auto api = generation_api(path);
  if (!models && !api) {
    return error(ApiKind::kChat, 404, "invalid_request_error",
                 "The path `" + std::string(path) + "` does not exist.");
  }
  const ApiKind shape = api.value_or(ApiKind::kChat);
  if (!c.api_key.empty() && !authorized(r, c.api_key)) {
    return error(shape, 401, "invalid_request_error",
                 "Invalid or missing API key (expected 'Authorization: Bearer KEY' or "
                 "'x-api-key: KEY').");
  }
  if (models) {
    if (!get) return method_not_allowed(shape);
    return InfoEndpoint::kModels;
  }
  if (r.method != "POST") return method_not_allowed(shape);
  // What parsing the body may build is bounded before it is parsed.
  if (auto err = fields::check_body_shape(r.body,
                                          c.max_body_values > 0 ? c.max_body_values : UINT64_MAX)) {
    return error(shape, err->status, err->type, err->message);
  }
  // A request for a LoRA adapter is parsed as one for a model of that name, and its prefix blocks
  // are its adapter's own (as vLLM's block hashes include the adapter).
  const std::int32_t lora = requested_lora(r.body, c.lora_adapters);
  const std::string lora_model = lora >= 0 ? lora_name(lora) : std::string();
  RouterConfig for_model = c;
  if (lora >= 0) for_model.model = lora_model;
  auto parsed = parse(*api, r, for_model);
  if (auto* err = std::get_if<RequestError>(&parsed)) {
    return error(shape, err->status, err->type, err->message);
  }
  auto& request = std::get<CompletionRequest>(parsed);
  request.lora = lora;
  if (lora >= 0) {
    for (std::uint64_t& h : request.block_hashes) h = mix_keys(h, static_cast<std::uint64_t>(lora));
  }
  // The whole sequence must fit (vLLM's max_model_len check); with the engine model, in the
  // whole blocks of its KV cache, or the request could never be readmitted after preemption.
  const std::int64_t limit = c.context_limit;
  const std::int64_t prompt = std::max<std::int64_t>(1, request.prompt_tokens);
  if (prompt > limit || request.max_tokens > limit - prompt) {  // no overflow for huge max_tokens
    return error(
        shape, 400, "invalid_request_error",
        fmt::format("This model's maximum context length is {} tokens. However, you requested "
                    "more ({} in the messages, {} in the completion). Please reduce the length "
                    "of the messages or completion.",
                    limit, request.prompt_tokens, request.max_tokens));
  }
  return std::move(request);
}

}  // namespace tokenbench::sim
