#include "tokenbench/workload/fields.h"

#include <cmath>
#include <stdexcept>

namespace tokenbench::workload {

void fail_at(const std::string& path, std::size_t line, const std::string& what) {
  throw std::runtime_error("dataset " + path + " line " + std::to_string(line) + ": " + what);
}

double number_field(const std::string& path, std::size_t line, const std::string& column,
                    const std::string& value) {
  std::size_t used = 0;
  double v = NAN;
  try {
    v = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (value.empty() || used != value.size() || !std::isfinite(v)) {
    fail_at(path, line, column + " '" + value + "' is not a number");
  }
  return v;
}

std::int64_t whole_field(const std::string& path, std::size_t line, const std::string& column,
                         const std::string& value, std::int64_t min) {
  std::size_t used = 0;
  double v = NAN;
  try {
    v = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (value.empty() || used != value.size() || !std::isfinite(v) || v != std::floor(v) ||
      v < static_cast<double>(min) || v > 1e15) {
    fail_at(path, line,
            column + " '" + value + "' is not a whole number >= " + std::to_string(min));
  }
  return static_cast<std::int64_t>(v);
}

}  // namespace tokenbench::workload
