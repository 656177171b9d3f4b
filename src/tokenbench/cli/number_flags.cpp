#include "tokenbench/cli/number_flags.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include "tokenbench/cli/run_flags.h"
#include "tokenbench/core/text.h"

namespace tokenbench::cli {
namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// A FLOAT value: a finite number (CLI11 itself says when it is no number at all).
void check_finite(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return;
  if (!std::isfinite(v)) {
    throw UsageError(fmt::format("{} {}: give a finite number (not NaN or infinity), e.g. {} 1.5",
                                 flag, core::one_line(text), flag));
  }
}

// An INT or UINT value: within the range CLI11 reads it into (it would wrap or clamp).
void check_integer(const std::string& flag, const std::string& text, bool is_unsigned) {
  const std::size_t first = text.find_first_not_of(" \t");
  const bool negative = first != std::string::npos && text[first] == '-';
  char* end = nullptr;
  errno = 0;
  if (is_unsigned) {
    std::strtoull(text.c_str(), &end, 0);
  } else {
    std::strtoll(text.c_str(), &end, 0);
  }
  if (end == text.c_str() || *end != '\0') return;  // no number: CLI11 says so
  if (errno == ERANGE || (is_unsigned && negative)) {
    const std::string range =
        is_unsigned ? fmt::format("0 to {}", std::numeric_limits<std::uint64_t>::max())
                    : fmt::format("{} to {}", std::numeric_limits<std::int64_t>::min(),
                                  std::numeric_limits<std::int64_t>::max());
    throw UsageError(fmt::format("{} {} is out of range: give a whole number from {}", flag,
                                 core::one_line(text), range));
  }
}

void guard(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    const std::string type = o->get_type_name();
    const std::string flag = o->get_name();
    if (starts_with(type, "FLOAT")) {
      o->check(CLI::Validator(
          [flag](std::string& text) {
            check_finite(flag, text);
            return std::string();
          },
          ""));
    } else if (starts_with(type, "INT") || starts_with(type, "UINT")) {
      const bool is_unsigned = starts_with(type, "UINT");
      o->check(CLI::Validator(
          [flag, is_unsigned](std::string& text) {
            check_integer(flag, text, is_unsigned);
            return std::string();
          },
          ""));
    }
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) guard(*sub);
}

}  // namespace

void guard_number_flags(CLI::App& app) { guard(app); }

}  // namespace tokenbench::cli
