#include "tokenbench/workload/fields.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tokenbench::workload {

void fail_at(const std::string& path, std::size_t line, const std::string& what) {
  throw std::runtime_error("dataset " + path + " line " + std::to_string(line) + ": " + what);
}

namespace {

// The value as a number, or NaN when the whole field is not one.
double parse_number(const std::string& value) {
  std::size_t used = 0;
  try {
    const double v = std::stod(value, &used);
    return used == value.size() ? v : NAN;
  } catch (const std::exception&) {
    return NAN;
  }
}

}  // namespace

double number_field(const std::string& path, std::size_t line, const std::string& column,
                    const std::string& value) {
  const double v = parse_number(value);
  if (!std::isfinite(v)) fail_at(path, line, column + " '" + value + "' is not a number");
  return v;
}

std::int64_t whole_field(const std::string& path, std::size_t line, const std::string& column,
                         const std::string& value, std::int64_t min) {
  const double v = parse_number(value);
  if (!std::isfinite(v) || v != std::floor(v) || v < static_cast<double>(min) || v > 1e15) {
    fail_at(path, line,
            column + " '" + value + "' is not a whole number >= " + std::to_string(min));
  }
  return static_cast<std::int64_t>(v);
}

std::optional<std::vector<std::uint64_t>> hash_ids_field(const nlohmann::json& value) {
  if (!value.is_array()) return std::nullopt;
  std::vector<std::uint64_t> ids;
  ids.reserve(value.size());
  for (const auto& h : value) {
    if (!h.is_number_integer() || h.get<std::int64_t>() < 0) return std::nullopt;
    ids.push_back(h.get<std::uint64_t>());
  }
  return ids;
}

}  // namespace tokenbench::workload
