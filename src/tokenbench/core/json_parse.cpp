#include "tokenbench/core/json_parse.h"

#include <string>
#include <utility>

namespace tokenbench::core {

JsonShape json_shape(std::string_view text, std::size_t max_depth) {
  JsonShape shape;
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  std::size_t depth = 0;
  std::size_t commas_and_containers = 0;
  for (const char* p = begin; p < end; ++p) {
    switch (*p) {
      case '"':
        // To the closing quote; a backslash escapes the byte after it.
        for (++p; p < end && *p != '"'; ++p) {
          if (*p == '\\') ++p;
        }
        break;
      case '[':
      case '{':
        ++commas_and_containers;
        if (++depth > shape.depth) {
          shape.depth = depth;
          if (depth > max_depth) {
            shape.too_deep_at = static_cast<std::size_t>(p - begin);
            shape.values = commas_and_containers + 1;
            return shape;
          }
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      case ',':
        ++commas_and_containers;
        break;
      default:
        break;
    }
  }
  shape.values = text.empty() ? 0 : commas_and_containers + 1;
  return shape;
}

namespace {

const std::string& too_deep_words() {
  static const std::string words = "nested deeper than " + std::to_string(kMaxJsonDepth) +
                                   " levels, the limit of JSON documents read";
  return words;
}

}  // namespace

std::string json_depth_error(const JsonShape& shape) {
  if (shape.depth <= kMaxJsonDepth) return {};
  return too_deep_words() + " (at byte " + std::to_string(shape.too_deep_at) + ")";
}

std::string json_depth_error(std::string_view text) { return json_depth_error(json_shape(text)); }

nlohmann::json parse_json(std::string_view text) {
  if (const JsonShape shape = json_shape(text); shape.depth > kMaxJsonDepth) {
    // nlohmann's message names the byte: "parse error at byte N: nested deeper than ...".
    throw nlohmann::json::parse_error::create(101, shape.too_deep_at + 1, too_deep_words(),
                                              nullptr);
  }
  return nlohmann::json::parse(text);
}

nlohmann::json parse_json_or_discarded(std::string_view text, std::string* why) {
  std::string depth = json_depth_error(json_shape(text));
  if (why != nullptr) why->clear();
  if (depth.empty()) return nlohmann::json::parse(text, nullptr, false);
  if (why != nullptr) *why = std::move(depth);
  return nlohmann::json(nlohmann::json::value_t::discarded);
}

}  // namespace tokenbench::core
