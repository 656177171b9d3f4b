#include "tokenbench/load/think_time.h"

#include <cmath>
#include <stdexcept>

namespace tokenbench::load {
namespace {

// SplitMix64: a well-mixed 64-bit value of its input.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

[[noreturn]] void bad_think_time(const std::string& text, const std::string& why) {
  throw std::invalid_argument("--think-time '" + text + "': " + why +
                              "; use seconds (2), uniform:LO,HI or exponential:MEAN");
}

double seconds_value(const std::string& text, const std::string& part) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(part, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (part.empty() || used != part.size() || !std::isfinite(v) || v < 0 || v > 3600) {
    bad_think_time(text, "'" + part + "' is not a number of seconds in [0, 3600]");
  }
  return v;
}

}  // namespace

double ThinkTime::seconds(std::uint64_t seed, std::int64_t session, std::int32_t turn) const {
  const std::uint64_t h =
      mix(mix(seed ^ 0x7468696e6b74696dull) ^ mix(static_cast<std::uint64_t>(session)) ^
          static_cast<std::uint64_t>(turn));
  const double u = static_cast<double>(h >> 11) * 0x1.0p-53;  // [0, 1)
  switch (kind) {
    case Kind::kFixed:
      return a;
    case Kind::kUniform:
      return a + (b - a) * u;
    case Kind::kExponential:
      return -a * std::log1p(-u);
  }
  return a;
}

ThinkTime parse_think_time(const std::string& text) {
  ThinkTime t;
  const auto colon = text.find(':');
  if (colon == std::string::npos) {
    t.a = seconds_value(text, text);
    return t;
  }
  const std::string kind = text.substr(0, colon);
  const std::string args = text.substr(colon + 1);
  if (kind == "uniform") {
    const auto comma = args.find(',');
    if (comma == std::string::npos) bad_think_time(text, "uniform needs LO,HI");
    t.kind = ThinkTime::Kind::kUniform;
    t.a = seconds_value(text, args.substr(0, comma));
    t.b = seconds_value(text, args.substr(comma + 1));
    if (t.b < t.a) bad_think_time(text, "HI is below LO");
    return t;
  }
  if (kind == "exponential" || kind == "exp") {
    t.kind = ThinkTime::Kind::kExponential;
    t.a = seconds_value(text, args);
    return t;
  }
  bad_think_time(text, "'" + kind + "' is not a distribution");
}

}  // namespace tokenbench::load
