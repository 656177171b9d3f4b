#include "tokenbench/report/csv_export.h"

#include <fmt/core.h>

#include <cmath>
#include <optional>
#include <stdexcept>

#include "tokenbench/metrics/percentile.h"
#include "tokenbench/metrics/request_metrics.h"
#include "tokenbench/report/peer_files.h"

namespace tokenbench::report {
namespace {

constexpr const char* kEol = "\r\n";

constexpr const char* kRequestColumns[] = {"id",
                                           "phase",
                                           "streamed",
                                           "endpoint",
                                           "attempt",
                                           "retried",
                                           "nonstream_sample",
                                           "scheduled_ms",
                                           "sent_ms",
                                           "headers_ms",
                                           "first_token_ms",
                                           "last_token_ms",
                                           "done_ms",
                                           "ttft_ms",
                                           "tpot_ms",
                                           "e2el_ms",
                                           "itl_mean_ms",
                                           "chunks",
                                           "decode_tps",
                                           "output_tps",
                                           "prompt_tokens",
                                           "prompt_source",
                                           "output_tokens",
                                           "output_source",
                                           "http_status",
                                           "error",
                                           "error_message",
                                           "finish_reason",
                                           "request_id",
                                           "response_id"};

// A stamp in ms since the origin, exact from its integer nanoseconds; empty when it never happened.
std::string stamp_ms(core::Nanos ns) {
  if (ns == core::kNever) return "";
  const bool negative = ns < 0;
  const std::uint64_t abs =
      negative ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
  return fmt::format("{}{}.{:06}", negative ? "-" : "", abs / 1'000'000, abs % 1'000'000);
}

std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.3f}", v) : std::string(); }

std::string number(const std::optional<double>& v) { return v ? number(*v) : std::string(); }

std::string json_field(const nlohmann::json& level, const char* key) {
  const auto it = level.find(key);
  if (it == level.end() || it->is_null()) return "";
  if (it->is_string()) return csv_text_field(it->get<std::string>());
  if (it->is_boolean()) return it->get<bool>() ? "true" : "false";
  if (it->is_number_integer()) return fmt::format("{}", it->get<std::int64_t>());
  if (it->is_number()) return number(it->get<double>());
  return "";
}

std::string join(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += fields[i];
  }
  return out + kEol;
}

}  // namespace

std::string csv_text_field(std::string_view text) {
  std::string value;
  if (!text.empty() && (text.front() == '=' || text.front() == '+' || text.front() == '-' ||
                        text.front() == '@' || text.front() == '\t' || text.front() == '\r')) {
    value += '\'';
  }
  value += text;
  if (value.find_first_of(",\"\r\n") == std::string::npos) return value;
  std::string quoted = "\"";
  for (const char c : value) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

std::string requests_csv_header() {
  return join(std::vector<std::string>(std::begin(kRequestColumns), std::end(kRequestColumns)));
}

std::string requests_to_csv(const std::vector<core::RequestRecord>& records) {
  std::string out = requests_csv_header();
  for (const core::RequestRecord& r : records) out += requests_csv_row(r);
  return out;
}

std::string requests_csv_row(const core::RequestRecord& r) {
  const metrics::RequestMetrics m = metrics::derive_request_metrics(r);
  // A plain double (NaN when undefined): g++ 12 misreads an optional built by a ternary.
  const double itl_mean = m.itl_ms.empty() ? metrics::kUndefined : metrics::mean(m.itl_ms);
  return join({
      fmt::format("{}", r.id),
      std::string(core::to_string(r.phase)),
      r.streamed ? "true" : "false",
      fmt::format("{}", r.endpoint),
      fmt::format("{}", r.attempt),
      r.retried ? "true" : "false",
      r.nonstream_sample ? "true" : "false",
      stamp_ms(r.scheduled),
      stamp_ms(r.sent),
      stamp_ms(r.headers),
      stamp_ms(r.first_token),
      stamp_ms(r.last_token),
      stamp_ms(r.done),
      number(m.ttft_ms),
      number(m.tpot_ms),
      number(m.e2el_ms),
      number(itl_mean),
      fmt::format("{}", r.chunks.size()),
      number(m.decode_tps),
      number(m.output_tps),
      fmt::format("{}", r.prompt_tokens),
      std::string(core::to_string(r.prompt_source)),
      fmt::format("{}", r.output_tokens),
      std::string(core::to_string(r.output_source)),
      fmt::format("{}", r.http_status),
      std::string(core::to_string(r.error)),
      csv_text_field(r.error_message),
      csv_text_field(r.finish_reason),
      csv_text_field(r.request_id),
      csv_text_field(r.response_id),
  });
}

std::string levels_to_csv(const nlohmann::json& sweep) {
  std::vector<std::string> columns = {"dir",
                                      "max_concurrency",
                                      "request_rate",
                                      "complete",
                                      "completed",
                                      "failed",
                                      "duration",
                                      "request_throughput",
                                      "output_throughput",
                                      "total_token_throughput",
                                      "request_goodput"};
  for (const char* figure : {"ttft", "tpot", "itl", "e2el"}) {
    for (const char* stat : {"mean", "p50", "p90", "p95", "p99"}) {
      columns.push_back(fmt::format("{}_{}_ms", stat, figure));
    }
  }
  std::string out = join(columns);
  const auto levels = sweep.find("levels");
  if (levels == sweep.end() || !levels->is_array()) return out;
  for (const nlohmann::json& level : *levels) {
    if (!level.is_object()) continue;
    std::vector<std::string> row;
    row.reserve(columns.size());
    for (const std::string& c : columns) row.push_back(json_field(level, c.c_str()));
    out += join(row);
  }
  return out;
}

bool wants_csv_export(const std::vector<std::string>& formats) {
  bool csv = false;
  for (const std::string& f : formats) {
    csv = csv || f == "csv";
    if (f != "csv" && !is_peer_export(f)) {
      throw std::invalid_argument("--export " + f +
                                  ": unknown format; the ones there are: csv (tokenbench's own), "
                                  "vllm, evalscope, aiperf and guidellm (their result files)");
    }
  }
  return csv;
}

}  // namespace tokenbench::report
