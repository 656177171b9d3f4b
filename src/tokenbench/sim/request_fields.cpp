#include "tokenbench/sim/request_fields.h"

#include <fmt/format.h>

#include <string>
#include <utility>
#include <variant>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/sim/image_tokens.h"

namespace tokenbench::sim::fields {

using nlohmann::json;

RequestError bad_request(std::string message) {
  return {400, "invalid_request_error", std::move(message)};
}

RequestError too_deep(const std::string& why) {
  return bad_request("The request body is " + why + ": send at most " +
                     std::to_string(core::kMaxJsonDepth) + " levels of arrays and objects.");
}

nlohmann::json parse_object(std::string_view text, std::optional<RequestError>& error) {
  std::string deep;
  nlohmann::json body = core::parse_json_or_discarded(text, &deep);
  if (!deep.empty()) {
    error = too_deep(deep);
  } else if (body.is_discarded()) {
    error = bad_request("The request body is not valid JSON.");
  } else if (!body.is_object()) {
    error = bad_request("The request body must be a JSON object.");
  }
  return body;
}

std::optional<RequestError> check_body_shape(std::string_view body, std::uint64_t max_values) {
  const core::JsonShape shape = core::json_shape(body);
  if (const std::string deep = core::json_depth_error(shape); !deep.empty()) return too_deep(deep);
  if (shape.values > max_values) {
    return bad_request(fmt::format(
        "The request body holds about {} JSON values, more than the {} this server parses (one "
        "per token of its maximum context length, plus {}).",
        shape.values, max_values, kBodyValueSlack));
  }
  return std::nullopt;
}

bool read_count(const json& body, const char* key, std::int64_t& out, bool& present) {
  present = false;
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) return true;
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0) return false;
  out = it->get<std::int64_t>();
  present = true;
  return true;
}

bool read_bool(const json& body, const char* key, bool& out) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) return true;
  if (!it->is_boolean()) return false;
  out = it->get<bool>();
  return true;
}

std::optional<RequestError> check_model(const json& body, std::string_view served_model) {
  const auto model = body.find("model");
  if (model == body.end() || model->is_null()) return std::nullopt;
  if (!model->is_string()) return bad_request("'model' must be a string.");
  const auto& name = model->get_ref<const std::string&>();
  if (name.empty() || name == served_model) return std::nullopt;
  return RequestError{404, "invalid_request_error",
                      "The model `" + name + "` does not exist. This server serves `" +
                          std::string(served_model) + "`."};
}

std::string text_of(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

void count_text(const json& text, CompletionRequest& req) {
  if (text.is_string()) {
    req.prompt_tokens += core::approx_token_count(text.get_ref<const std::string&>());
  }
}

namespace {

std::optional<RequestError> charge(const std::variant<ImageSize, std::string>& size,
                                   CompletionRequest& req) {
  if (const auto* error = std::get_if<std::string>(&size)) {
    return bad_request("Cannot read image " + std::to_string(req.images + 1) + ": " + *error + ".");
  }
  const auto& s = std::get<ImageSize>(size);
  const std::int64_t tokens = image_tokens(s.width, s.height);
  ++req.images;
  req.image_tokens += tokens;
  req.prompt_tokens += tokens;
  return std::nullopt;
}

}  // namespace

std::optional<RequestError> count_image_url(std::string_view url, CompletionRequest& req) {
  return charge(image_size_from_data_url(url), req);
}

std::optional<RequestError> count_image_base64(std::string_view data, CompletionRequest& req) {
  return charge(image_size_from_base64(data), req);
}

}  // namespace tokenbench::sim::fields
