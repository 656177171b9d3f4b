#include "tokenbench/report/console.h"

#include "tokenbench/core/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tokenbench/metrics/percentile.h"

namespace tokenbench::report {
namespace {

using metrics::Distribution;
using metrics::is_defined;

constexpr std::string_view kUndefinedCell = "-";

// Seconds and rates with four decimals, as evalscope rounds them.
std::string fixed4(double v) {
  return is_defined(v) ? fmt::format("{:.4f}", v) : std::string(kUndefinedCell);
}

std::string seconds_from_ms(double ms) { return fixed4(ms / 1e3); }

std::string count_cell(double v) {
  if (!is_defined(v)) return std::string(kUndefinedCell);
  if (v == std::floor(v)) return fmt::format("{:.0f}", v);
  return fmt::format("{:.2f}", v);
}

std::string rule(const std::vector<std::size_t>& widths, char fill) {
  std::string line = "+";
  for (std::size_t w : widths) {
    line.append(w + 2, fill);
    line += '+';
  }
  line += '\n';
  return line;
}

std::string row_line(const std::vector<std::size_t>& widths, const std::vector<Align>& align,
                     const std::vector<std::string>& cells) {
  std::string line = "|";
  for (std::size_t i = 0; i < widths.size(); ++i) {
    const std::string cell = i < cells.size() ? cells[i] : std::string();
    line += ' ';
    line += align[i] == Align::kLeft ? fmt::format("{:<{}}", cell, widths[i])
                                     : fmt::format("{:>{}}", cell, widths[i]);
    line += " |";
  }
  line += '\n';
  return line;
}

std::string rate_cell(double rate) {
  if (std::isinf(rate) || rate <= 0.0) return "inf";
  return fmt::format("{:.4f}", rate);
}

std::string summary_table(const metrics::Summary& s, const core::RunConfig& config) {
  const auto per_request = [&s](double total) {
    return s.completed > 0 ? fixed4(total / static_cast<double>(s.completed))
                           : std::string(kUndefinedCell);
  };
  const std::string concurrency =
      config.max_concurrency > 0 ? std::to_string(config.max_concurrency) : "unlimited";
  std::vector<std::vector<std::string>> rows{
      {"Time taken for tests (s)", fixed4(s.duration_s)},
      {"Number of concurrency", concurrency},
      {"Max concurrency observed", std::to_string(s.max_concurrency_observed)},
      {"Request rate (req/s)", rate_cell(config.request_rate)},
      {"Total requests", std::to_string(s.measured)},
      {"Succeed requests", std::to_string(s.completed)},
      {"Failed requests", std::to_string(s.failed)},
      {"Output token throughput (tok/s)", fixed4(s.output_throughput)},
      {"Total token throughput (tok/s)", fixed4(s.total_token_throughput)},
      {"Request throughput (req/s)", fixed4(s.request_throughput)},
  };
  if (!s.slo.empty()) {
    rows.push_back({"Request goodput (req/s)", fixed4(s.request_goodput)});
    rows.push_back(
        {"Good requests (" + metrics::to_string(s.slo) + ")", std::to_string(s.good_completed)});
  }
  rows.push_back({"Average latency (s)", seconds_from_ms(s.e2el_ms.mean)});
  rows.push_back({"Average time to first token (s)", seconds_from_ms(s.ttft_ms.mean)});
  rows.push_back({"Average time per output token (s)", seconds_from_ms(s.tpot_ms.mean)});
  rows.push_back({"Average inter-token latency (s)", seconds_from_ms(s.itl_ms.mean)});
  rows.push_back(
      {"Average input tokens per request", per_request(static_cast<double>(s.total_input_tokens))});
  rows.push_back({"Average output tokens per request",
                  per_request(static_cast<double>(s.total_output_tokens))});
  return render_grid_table({"Key", "Value"}, rows);
}

std::string percentile_table(const metrics::Summary& s) {
  std::vector<std::vector<std::string>> rows;
  for (double p : metrics::kConsolePercentiles) {
    rows.push_back({
        fmt::format("{}%", p),
        seconds_from_ms(s.ttft_ms.at(p)),
        seconds_from_ms(s.itl_ms.at(p)),
        seconds_from_ms(s.tpot_ms.at(p)),
        seconds_from_ms(s.e2el_ms.at(p)),
        count_cell(s.input_tokens.at(p)),
        count_cell(s.output_tokens.at(p)),
        fixed4(s.output_tps.at(p)),
        fixed4(s.total_tps.at(p)),
    });
  }
  return render_grid_table({"Percentiles", "TTFT (s)", "ITL (s)", "TPOT (s)", "Latency (s)",
                            "Input tokens", "Output tokens", "Output (tok/s)", "Total (tok/s)"},
                           rows);
}

std::string error_table(const metrics::Summary& s) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& [cls, n] : s.errors) {
    const auto example = s.error_examples.find(cls);
    rows.push_back({cls, std::to_string(n),
                    example != s.error_examples.end() ? core::one_line(example->second)
                                                       : std::string()});
  }
  for (const auto& [status, n] : s.http_status) {
    rows.push_back({fmt::format("HTTP {}", status), std::to_string(n), std::string()});
  }
  return render_grid_table({"Error", "Count", "First message"}, rows,
                           {Align::kLeft, Align::kRight, Align::kLeft});
}

}  // namespace

std::string render_grid_table(const std::vector<std::string>& header,
                              const std::vector<std::vector<std::string>>& rows,
                              const std::vector<Align>& align) {
  std::vector<Align> columns = align;
  columns.resize(header.size(), Align::kRight);
  if (align.empty() && !columns.empty()) columns[0] = Align::kLeft;
  std::vector<std::size_t> widths(header.size(), 0);
  for (std::size_t i = 0; i < header.size(); ++i) widths[i] = header[i].size();
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < widths.size() && i < row.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  std::string out = rule(widths, '-');
  out += row_line(widths, columns, header);
  out += rule(widths, '=');
  for (const auto& row : rows) {
    out += row_line(widths, columns, row);
    out += rule(widths, '-');
  }
  return out;
}

std::string render_console_report(const metrics::Summary& s, const core::RunConfig& config) {
  std::string out = "Benchmarking summary:\n";
  out += summary_table(s, config);
  for (const std::string& warning : s.warnings) out += "Warning: " + warning + "\n";
  out += "\nPercentile results:\n";
  out += percentile_table(s);
  if (s.failed > 0) {
    out += "\nErrors:\n";
    out += error_table(s);
  }
  return out;
}

}  // namespace tokenbench::report
