#include "tokenbench/workload/length_dist.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "tokenbench/core/config_check.h"
#include "tokenbench/core/input_limits.h"

namespace tokenbench::workload {
namespace {

[[noreturn]] void bad(const std::string& flag, const std::string& spec, const std::string& what) {
  throw std::invalid_argument(flag + " '" + spec + "': " + what + "; use " + kLengthDistForms);
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// The whole of `s` as a finite number.
bool to_number(const std::string& s, double& out) {
  const std::string t = trim(s);
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(t.c_str(), &end);
  return errno == 0 && end == t.c_str() + t.size() && std::isfinite(out);
}

bool to_whole(const std::string& s, std::int64_t& out) {
  double d = 0;
  if (!to_number(s, d) || d != std::floor(d) || std::fabs(d) > 9e15) return false;
  out = static_cast<std::int64_t>(d);
  return true;
}

// "A,B,..." as numbers; empty when any is not one.
std::vector<double> numbers(const std::string& args) {
  std::vector<double> out;
  std::size_t from = 0;
  while (true) {
    const auto comma = args.find(',', from);
    double d = 0;
    if (!to_number(args.substr(from, comma - from), d)) return {};
    out.push_back(d);
    if (comma == std::string::npos) return out;
    from = comma + 1;
  }
}

LengthDist read_empirical(const std::string& path, const std::string& flag,
                          const std::string& spec) {
  std::ifstream in(path);
  if (!in) bad(flag, spec, "cannot open " + path);
  LengthDist d;
  d.kind = LengthDist::Kind::kEmpirical;
  std::string line;
  core::LineReader lines(in, path);
  const auto next_line = [&] {
    try {
      return lines.next(line);
    } catch (const std::runtime_error& e) {  // a line over --max-line-bytes: no form to suggest
      throw std::invalid_argument(flag + " '" + spec + "': " + e.what());
    }
  };
  bool first = true;
  while (next_line()) {
    const std::size_t number = lines.number();
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const auto comma = t.find(',');
    const std::string len_text = trim(t.substr(0, comma));
    const bool header = first && std::isalpha(static_cast<unsigned char>(len_text[0]));
    first = false;
    if (header) continue;
    const auto at = [&](const std::string& what) {
      std::string where = path;
      where.append(" line ").append(std::to_string(number)).append(": ").append(what);
      bad(flag, spec, where);
    };
    std::int64_t len = 0;
    if (!to_whole(len_text, len) || len < 1 || len > core::kMaxTokens) {
      at("'" + len_text + "' is not a length (a whole number 1 to 10^7)");
    }
    double weight = 1;
    if (comma != std::string::npos) {
      const std::string w = trim(t.substr(comma + 1));
      if (!to_number(w, weight) || weight < 0) at("'" + w + "' is not a weight (a number >= 0)");
    }
    d.values.push_back(len);
    d.weights.push_back(weight);
  }
  if (d.values.empty()) bad(flag, spec, path + " has no lengths (one per line, or length,weight)");
  double total = 0;
  for (const double w : d.weights) d.cumulative.push_back(total += w);
  if (!(total > 0) || !std::isfinite(total)) bad(flag, spec, path + " has no weight above 0");
  return d;
}

std::int64_t clamp_length(double x) {
  if (!(x >= 1)) return 1;  // NaN included
  if (x >= static_cast<double>(core::kMaxTokens)) return core::kMaxTokens;
  return std::max<std::int64_t>(1, std::llround(x));
}

// A drawn length within the distribution's own bounds, when it has them.
std::int64_t bounded(const LengthDist& d, std::int64_t len) {
  return d.max > 0 ? std::clamp(len, d.min, d.max) : len;
}

}  // namespace

LengthDist parse_length_dist(const std::string& spec, const std::string& flag) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  const std::string args = colon == std::string::npos ? "" : spec.substr(colon + 1);
  LengthDist d;
  if (kind == "fixed") {
    if (colon != std::string::npos) bad(flag, spec, "fixed takes no parameters (--input-len does)");
    return d;
  }
  if (colon == std::string::npos &&
      (kind == "uniform" || kind == "normal" || kind == "lognormal" || kind == "empirical")) {
    bad(flag, spec, kind + " needs its parameters after a colon");
  }
  const auto max_text = std::to_string(core::kMaxTokens);
  if (kind == "uniform") {
    std::int64_t lo = 0;
    std::int64_t hi = 0;
    const auto comma = args.find(',');
    if (comma == std::string::npos || !to_whole(args.substr(0, comma), lo) ||
        !to_whole(args.substr(comma + 1), hi)) {
      bad(flag, spec, "uniform needs two whole numbers LO,HI");
    }
    if (lo < 1 || hi < lo || hi > core::kMaxTokens) {
      bad(flag, spec, "uniform needs 1 <= LO <= HI <= " + max_text);
    }
    d.kind = LengthDist::Kind::kUniform;
    d.a = static_cast<double>(lo);
    d.b = static_cast<double>(hi);
    return d;
  }
  if (kind == "normal" || kind == "lognormal") {
    const std::vector<double> n = numbers(args);
    if (n.size() != 2 && n.size() != 4) {
      bad(flag, spec, kind + " needs two numbers MEAN,SD (or four: MEAN,SD,MIN,MAX)");
    }
    d.a = n[0];
    d.b = n[1];
    if (!(d.a > 0) || d.a > static_cast<double>(core::kMaxTokens) || d.b < 0) {
      bad(flag, spec, kind + " needs 0 < MEAN <= " + max_text + " and SD >= 0 (in tokens)");
    }
    if (n.size() == 4) {
      if (n[2] != std::floor(n[2]) || n[3] != std::floor(n[3]) || n[2] < 1 || n[3] < n[2] ||
          n[3] > static_cast<double>(core::kMaxTokens)) {
        bad(flag, spec, kind + "'s bounds need whole numbers 1 <= MIN <= MAX <= " + max_text);
      }
      d.min = static_cast<std::int64_t>(n[2]);
      d.max = static_cast<std::int64_t>(n[3]);
    }
    d.kind = kind == "normal" ? LengthDist::Kind::kNormal : LengthDist::Kind::kLognormal;
    return d;
  }
  if (kind == "empirical") {
    if (args.empty()) bad(flag, spec, "empirical needs a file of lengths");
    return read_empirical(args, flag, spec);
  }
  bad(flag, spec, "'" + kind + "' is not a distribution");
}

LengthDist fixed_length(std::int64_t len, double range_ratio) {
  LengthDist d;
  d.a = static_cast<double>(len);
  d.b = range_ratio;
  return d;
}

std::pair<double, double> lognormal_params(double mean, double sd) {
  const double sigma2 = std::log1p((sd * sd) / (mean * mean));
  return {std::log(mean) - sigma2 / 2, std::sqrt(sigma2)};
}

std::int64_t draw_length(const LengthDist& d, std::mt19937_64& rng) {
  switch (d.kind) {
    case LengthDist::Kind::kFixed: {
      // vLLM's random dataset: [len(1-r), len(1+r)], at least 1.
      const auto len = static_cast<std::int64_t>(d.a);
      if (d.b <= 0.0) return std::max<std::int64_t>(1, len);
      const auto lo = static_cast<std::int64_t>(std::floor(d.a * (1.0 - d.b)));
      const auto hi = static_cast<std::int64_t>(std::ceil(d.a * (1.0 + d.b)));
      std::uniform_int_distribution<std::int64_t> dist(std::max<std::int64_t>(1, lo),
                                                       std::max<std::int64_t>(1, hi));
      return dist(rng);
    }
    case LengthDist::Kind::kUniform: {
      std::uniform_int_distribution<std::int64_t> dist(static_cast<std::int64_t>(d.a),
                                                       static_cast<std::int64_t>(d.b));
      return dist(rng);
    }
    case LengthDist::Kind::kNormal: {
      if (d.b <= 0) return bounded(d, clamp_length(d.a));
      std::normal_distribution<double> dist(d.a, d.b);
      return bounded(d, clamp_length(dist(rng)));
    }
    case LengthDist::Kind::kLognormal: {
      if (d.b <= 0) return bounded(d, clamp_length(d.a));
      const auto [mu, sigma] = lognormal_params(d.a, d.b);
      std::lognormal_distribution<double> dist(mu, sigma);
      return bounded(d, clamp_length(dist(rng)));
    }
    case LengthDist::Kind::kEmpirical: {
      // The first entry whose running sum passes the draw: zero weights are never picked.
      std::uniform_real_distribution<double> dist(0.0, d.cumulative.back());
      const double u = dist(rng);
      const auto at = std::upper_bound(d.cumulative.begin(), d.cumulative.end(), u);
      const auto i = static_cast<std::size_t>(at - d.cumulative.begin());
      return d.values[std::min(i, d.values.size() - 1)];
    }
  }
  return 1;
}

}  // namespace tokenbench::workload
