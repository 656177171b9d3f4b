// The flags whose values are lists or byte sizes, and the load's: --percentiles,
// --max-concurrency, --request-rate, --arrival, --ramp-up, --max-*-bytes.

#include <fmt/core.h>

#include <cctype>
#include <cmath>
#include <sstream>

#include "tokenbench/cli/run_flag_parts.h"
#include "tokenbench/core/config_check.h"
#include "tokenbench/core/input_limits.h"

namespace tokenbench::cli {
namespace {

double parse_number(const std::string& item, const char* flag, const char* example) {
  try {
    std::size_t used = 0;
    const double v = std::stod(item, &used);
    if (used != item.size()) throw std::invalid_argument(item);
    return v;
  } catch (const std::exception&) {
    throw UsageError(
        fmt::format("{}: '{}' is not a number (e.g. {} {})", flag, item, flag, example));
  }
}

}  // namespace

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    out.push_back(item);
  }
  return out;
}

std::vector<double> parse_percentiles(const std::string& text) {
  std::vector<double> out;
  for (const auto& item : split_commas(text)) {
    const double p = parse_number(item, "--percentiles", "50,90,99");
    if (!(p > 0 && p < 100)) {
      throw UsageError("--percentiles: '" + item +
                       "' is not a number between 0 and 100 (e.g. --percentiles 50,90,99)");
    }
    out.push_back(p);
  }
  if (out.empty()) throw UsageError("--percentiles needs at least one value, e.g. 50,90,99");
  return out;
}

std::vector<int> parse_concurrencies(const std::string& text) {
  std::vector<int> out;
  for (const auto& item : split_commas(text)) {
    const double v = parse_number(item, "--max-concurrency", "1,8,32");
    if (!(v >= 0 && v <= core::kMaxConcurrency) || v != std::floor(v)) {
      throw UsageError(
          fmt::format("--max-concurrency {} is out of range: give a whole number from 0 to {} (0: "
                      "unlimited), e.g. 1,8,32",
                      item, core::kMaxConcurrency));
    }
    out.push_back(static_cast<int>(v));
  }
  if (out.empty()) throw UsageError("--max-concurrency needs a value, e.g. 32 or 1,8,32");
  return out;
}

std::vector<double> parse_rates(const std::string& text) {
  std::vector<double> out;
  for (const auto& item : split_commas(text)) {
    const double v = item == "inf" ? INFINITY : parse_number(item, "--request-rate", "1,2,4");
    if (!(v > 0)) throw UsageError("--request-rate must be > 0 (or inf)");
    out.push_back(v);
  }
  if (out.empty()) throw UsageError("--request-rate needs a value, e.g. 8 or 1,2,4");
  return out;
}

std::int64_t parse_byte_size(const std::string& text, const char* flag) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  unit.erase(0, unit.find_first_not_of(' '));
  for (char& ch : unit) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  double scale = 0;
  if (unit.empty() || unit == "b") {
    scale = 1;
  } else if (unit == "k" || unit == "kb" || unit == "kib") {
    scale = 1024.0;
  } else if (unit == "m" || unit == "mb" || unit == "mib") {
    scale = 1024.0 * 1024;
  } else if (unit == "g" || unit == "gb" || unit == "gib") {
    scale = 1024.0 * 1024 * 1024;
  } else if (unit == "t" || unit == "tb" || unit == "tib") {
    scale = 1024.0 * 1024 * 1024 * 1024;
  }
  const double bytes = value * scale;
  if (used == 0 || scale == 0 || !std::isfinite(value) || !(bytes >= 0 && bytes <= 1e15)) {
    throw UsageError(fmt::format(
        "{}: '{}' is not a byte size (e.g. 4194304, 512KiB, 4MiB, 1GiB, 1TiB)", flag, text));
  }
  return static_cast<std::int64_t>(bytes);
}

void add_max_line_bytes_flag(CLI::App* cmd, std::string& value) {
  cmd->add_option("--max-line-bytes", value,
                  "The longest line read from a file (requests.jsonl, telemetry.jsonl); a longer "
                  "one is an error naming the file and line")
      ->capture_default_str();
}

void apply_max_line_bytes(const std::string& value) {
  const std::int64_t bytes = parse_byte_size(value, "--max-line-bytes");
  if (bytes < core::kMinMaxLineBytes || bytes > core::kMaxMaxLineBytes) {
    throw UsageError(
        fmt::format("--max-line-bytes {} is out of range: give {} to {} bytes (e.g. "
                    "16MiB, the default)",
                    bytes, core::kMinMaxLineBytes, core::kMaxMaxLineBytes));
  }
  core::set_max_line_bytes(bytes);
}

void settle_load(RunFlags& f) {
  core::RunConfig& c = f.config;
  if (f.arrival == "poisson") {
    c.arrival = core::ArrivalKind::kGamma;
    c.burstiness = 1.0;
  } else if (const auto arrival = core::kArrivalNames.parse(f.arrival)) {
    c.arrival = *arrival;
  } else {
    throw UsageError("--arrival '" + f.arrival + "' is not known: use gamma, poisson or constant");
  }
  f.concurrencies = parse_concurrencies(f.concurrency);
  f.rates = parse_rates(f.rate);
  c.max_concurrency = f.concurrencies.front();
  c.request_rate = f.rates.front();
  if (!c.targets.empty() && (f.concurrencies.size() > 1 || f.rates.size() > 1)) {
    throw UsageError(
        "several targets are compared at one load level: give one "
        "--max-concurrency and one --request-rate (sweep each target separately)");
  }
  const auto ramp = core::kRampNames.parse(f.ramp);
  if (!ramp) throw UsageError("--ramp-up '" + f.ramp + "' is not known: use linear or exponential");
  c.ramp_up = *ramp;
}

void check_headers(const std::vector<std::string>& headers) {
  try {
    core::check_headers(headers);
  } catch (const core::ConfigError& e) {
    throw UsageError(e.what());
  }
}

}  // namespace tokenbench::cli
