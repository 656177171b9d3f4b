#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "tokenbench/core/input_limits.h"

namespace tokenbench::core {

// Every JSON document read from a file or a server goes through parse_json or
// parse_json_or_discarded (nlohmann), or a simdjson parser allocated with kMaxJsonDepth, so that
// one limit on nesting holds everywhere (docs/RELIABILITY.md, "Limits").

/// What a JSON text holds, by one pass over its bytes that knows strings and their escapes and
/// nothing else (no allocation; about 1 GB/s).
struct JsonShape {
  /// The deepest nesting of arrays and objects, counted up to max_depth + 1, where the scan stops.
  std::size_t depth = 0;
  /// At least the number of values a parser would build (arrays, objects, strings, numbers,
  /// literals; keys aside): arrays and objects, plus commas, plus one.
  std::size_t values = 0;
  std::size_t too_deep_at = 0;  ///< the byte offset of the bracket past max_depth; 0: none
};
/// The shape of `text`. For text that is not valid JSON the figures are those of more than its
/// valid prefix, never less, so a bound checked on them holds for anything a parser builds.
JsonShape json_shape(std::string_view text, std::size_t max_depth = kMaxJsonDepth);

/// "nested deeper than 256 levels, the limit of JSON documents read (at byte N)" when `text`
/// nests deeper than kMaxJsonDepth, else "".
std::string json_depth_error(std::string_view text);
/// The same for a shape already scanned.
std::string json_depth_error(const JsonShape& shape);

/// nlohmann::json::parse(text), refusing a document nested deeper than kMaxJsonDepth before it is
/// parsed. Throws nlohmann::json::parse_error on bad JSON and on a document too deep (so callers
/// that catch parse_error or json::exception handle both): "[json.exception.parse_error.101]
/// parse error at byte N: nested deeper than 256 levels, the limit of JSON documents read".
nlohmann::json parse_json(std::string_view text);

/// nlohmann::json::parse(text, nullptr, false): a discarded value on bad JSON and on a document
/// nested deeper than kMaxJsonDepth. `why`, when given, receives json_depth_error's words for a
/// document too deep, and is cleared otherwise (bad JSON leaves it empty).
nlohmann::json parse_json_or_discarded(std::string_view text, std::string* why = nullptr);

}  // namespace tokenbench::core
