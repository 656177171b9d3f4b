#include "tokenbench/report/console.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "tokenbench/core/secret_fields.h"
#include "tokenbench/core/text.h"
#include "tokenbench/metrics/cost.h"
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

// A share as "45.2 %"; the undefined cell when undefined.
std::string percent_cell(double share) {
  if (!is_defined(share)) return std::string(kUndefinedCell);
  return fmt::format("{:.1f} %", share * 100);
}

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

// How the console shows a latency: its unit, and a cell for a value given in milliseconds.
struct TimeUnit {
  const char* name;  // "ms" or "s"
  std::string (*cell)(double ms);
};

std::string seconds_cell(double ms) { return fixed4(ms / 1e3); }

constexpr TimeUnit kMilliseconds{"ms", &significant_cell};
constexpr TimeUnit kSeconds{"s", &seconds_cell};

std::string source_phrase(std::string_view source, bool prompt) {
  if (source == "usage") {
    return prompt ? "the server's usage (which counts the chat template too)"
                  : "the server's usage";
  }
  if (source == "tokenizer") return "the local tokenizer";
  if (source == "chunks") return "one per content chunk";
  if (source == "dataset") return "the dataset";
  if (source == "approximate") return "an approximation (pass --tokenizer for exact counts)";
  return std::string(source);
}

std::string sources_text(const std::map<std::string, std::int64_t>& sources, bool prompt) {
  std::string out;
  for (const auto& [source, n] : sources) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} for {}", source_phrase(source, prompt), n);
  }
  return out.empty() ? "none" : out;
}

std::string summary_table(const metrics::Summary& s, const core::RunConfig& config,
                          const TimeUnit& unit, bool compact) {
  const auto per_request = [&s](double total) {
    return s.completed > 0 ? fixed4(total / static_cast<double>(s.completed))
                           : std::string(kUndefinedCell);
  };
  const auto latency = [&unit](const char* label, double ms) {
    return std::vector<std::string>{fmt::format("{} ({})", label, unit.name), unit.cell(ms)};
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
  rows.push_back(latency("Average latency", s.e2el_ms.mean));
  rows.push_back(latency("Average time to first token", s.ttft_ms.mean));
  if (s.reasoning_requests > 0) {
    rows.push_back(latency("Average time to first reasoning token", s.ttfr_ms.mean));
    rows.push_back(latency("Average time to first answer token", s.ttfa_ms.mean));
  }
  if (s.reasoning_tokens_reported > 0) {
    rows.push_back({"Average reasoning tokens per request",
                    fixed4(static_cast<double>(s.total_reasoning_tokens) /
                           static_cast<double>(s.reasoning_tokens_reported))});
  }
  if (s.total_inputs > 0 && config.api != core::ApiKind::kEmbeddings) {
    rows.push_back({"Documents scored", std::to_string(s.total_inputs)});
    rows.push_back({"Document throughput (docs/s)", fixed4(s.input_throughput)});
    rows.push_back({"Input token throughput (tok/s)", fixed4(s.input_token_throughput)});
  } else if (s.total_inputs > 0) {
    rows.push_back({"Embedded inputs", std::to_string(s.total_inputs)});
    rows.push_back({"Input throughput (inputs/s)", fixed4(s.input_throughput)});
    rows.push_back({"Input token throughput (tok/s)", fixed4(s.input_token_throughput)});
  }
  rows.push_back(latency("Average time per output token", s.tpot_ms.mean));
  rows.push_back(latency("Average inter-token latency", s.itl_ms.mean));
  rows.push_back(
      {"Average input tokens per request", per_request(static_cast<double>(s.total_input_tokens))});
  rows.push_back({"Average output tokens per request",
                  per_request(static_cast<double>(s.total_output_tokens))});
  return render_grid_table({"Key", "Value"}, rows, {}, compact);
}

// The rows: evalscope's fixed percentiles and every --percentiles value, ascending.
std::vector<double> table_percentiles(const metrics::Summary& s) {
  std::vector<double> ps(metrics::kConsolePercentiles.begin(), metrics::kConsolePercentiles.end());
  ps.insert(ps.end(), s.percentiles.begin(), s.percentiles.end());
  std::sort(ps.begin(), ps.end());
  ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
  return ps;
}

std::string percentile_table(const metrics::Summary& s, const TimeUnit& unit, bool compact) {
  std::vector<std::vector<std::string>> rows;
  for (double p : table_percentiles(s)) {
    rows.push_back({
        fmt::format("{}%", p),
        unit.cell(s.ttft_ms.at(p)),
        unit.cell(s.itl_ms.at(p)),
        unit.cell(s.tpot_ms.at(p)),
        unit.cell(s.e2el_ms.at(p)),
        count_cell(s.input_tokens.at(p)),
        count_cell(s.output_tokens.at(p)),
        fixed4(s.output_tps.at(p)),
        fixed4(s.total_tps.at(p)),
        fixed4(s.decode_tps.at(p)),
    });
  }
  const auto col = [&unit](const char* name) { return fmt::format("{} ({})", name, unit.name); };
  return render_grid_table(
      {"Percentiles", col("TTFT"), col("ITL"), col("TPOT"), col("Latency"), "Input tokens",
       "Output tokens", "Output (tok/s)", "Total (tok/s)", "Decode (tok/s)"},
      rows, {}, compact);
}

// Multi-turn runs: TTFT and E2EL by turn index, with the prompt growing with the history.
std::string turn_table(const metrics::Summary& s, const TimeUnit& unit, bool compact) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : s.by_turn) {
    rows.push_back({std::to_string(f.turn), std::to_string(f.completed),
                    count_cell(f.mean_input_tokens), unit.cell(f.ttft_ms.mean),
                    unit.cell(f.ttft_ms.at(50)), unit.cell(f.ttft_ms.at(95)),
                    unit.cell(f.e2el_ms.mean)});
  }
  const auto col = [&unit](const char* name) { return fmt::format("{} ({})", name, unit.name); };
  return render_grid_table({"Turn", "Requests", "Input tokens", col("TTFT mean"), col("TTFT p50"),
                            col("TTFT p95"), col("Latency mean")},
                           rows, {}, compact);
}

// The prefix cache's hit rate as the server's usage says it, beside an ideal cache's and the
// throughput it bought (a high hit rate may buy little: read them together).
// Several tokens a chunk (speculative decoding, a buffering proxy): ITL per chunk and per token
// part ways, and the line says by how much and how the chunks were counted.
std::string chunk_line(const metrics::Summary& s) {
  const metrics::Distribution& d = s.tokens_per_chunk;
  if (d.count == 0 || !(d.mean > 1.05 || s.chunk_usage_requests > 0)) return "";
  return fmt::format(
      "Tokens per chunk: mean {:.2f}, p50 {:.0f}, p99 {:.0f}, max {:.0f} ({}); ITL p50 {:.2f} ms "
      "per chunk, {:.2f} ms per token.\n",
      d.mean, d.median, d.at(99), d.max,
      s.chunk_usage_requests > 0
          ? fmt::format("counted by the server's usage in each chunk in {} of {} requests",
                        s.chunk_usage_requests, s.completed)
          : std::string("apportioned from the usage by each chunk's text"),
      s.itl_ms.median, s.itl_per_token_ms.median);
}

std::string cache_line(const metrics::Summary& s) {
  const metrics::CacheTally& c = s.cache;
  std::string out = "Prefix cache: ";
  out += c.reported > 0
             ? fmt::format(
                   "the server's usage says {} of the prompt tokens of {} "
                   "requests were cached ({} of {})",
                   percent_cell(c.hit_rate()), c.reported, c.cached_tokens, c.prompt_tokens)
             : std::string("the server's usage says nothing of it");
  if (c.ideal_reported > 0) {
    out += fmt::format("; an ideal cache (unlimited, --cache-block) would have held {}",
                       percent_cell(c.ideal_hit_rate()));
  }
  if (is_defined(s.request_throughput) && is_defined(s.output_throughput)) {
    out += fmt::format(", at {} req/s and {:.2f} output tok/s", fixed4(s.request_throughput),
                       s.output_throughput);
  }
  return out + ".\n";
}

// USD with four significant digits ("$0.1234", "$12.35", "$0.0001049"; below $0.0001 in
// scientific notation, "$1.234e-05").
std::string usd(double v) {
  return is_defined(v) ? fmt::format("${:.4g}", v) : std::string(kUndefinedCell);
}

// What the run's work cost at --gpu-hour-price on --gpus GPUs.
std::string cost_line(const metrics::CostFigures& c) {
  std::string out = fmt::format(
      "Cost ({} per GPU-hour x {:g} GPU{} = {} an hour): {} per 1M output tokens, {} per 1M "
      "total tokens, {} per request",
      usd(c.gpu_hour_price), c.gpus, c.gpus == 1 ? "" : "s", usd(c.usd_per_hour),
      usd(c.usd_per_million_output_tokens), usd(c.usd_per_million_total_tokens),
      usd(c.usd_per_request));
  if (is_defined(c.usd_per_job)) out += fmt::format(", {} per job", usd(c.usd_per_job));
  return out + ".\n";
}

// The most call ids the console lists one by one.
constexpr std::size_t kConsoleCallIds = 16;

// Agentic job runs: the jobs' figures, then TTFT and TPOT by call depth and by call id.
std::string jobs_text(const metrics::JobFigures& f, const TimeUnit& unit, bool compact) {
  std::string out = fmt::format(
      "\nJobs: {} of {} completed ({} failed, {} cut short); {} jobs/s; {} jobs/h per user "
      "({} jobs in progress on average)\n",
      f.completed, f.jobs, f.failed, f.incomplete, fixed4(f.jobs_per_s),
      count_cell(std::round(f.jobs_per_hour_per_user)), count_cell(f.mean_jobs_in_progress));
  std::vector<std::vector<std::string>> rows;
  for (const auto& [name, d] :
       {std::pair{"Job latency", &f.job_ms}, std::pair{"Final answer TTFT", &f.final_ttft_ms}}) {
    rows.push_back({name, unit.cell(d->mean), unit.cell(d->at(50)), unit.cell(d->at(95)),
                    unit.cell(d->at(99)), unit.cell(d->max)});
  }
  out += render_grid_table(
      {fmt::format("Per job ({})", unit.name), "Mean", "P50", "P95", "P99", "Max"}, rows, {},
      compact);
  out += fmt::format(
      "Per job: {} calls, {} input and {} output tokens. Critical path: LLM {} {} ({} % of the "
      "latency), delays {} {}, other {} {}.\n",
      count_cell(f.mean_calls), count_cell(std::round(f.mean_input_tokens)),
      count_cell(std::round(f.mean_output_tokens)), unit.cell(f.mean_critical_llm_ms), unit.name,
      count_cell(std::round(f.critical_llm_share * 100)), unit.cell(f.mean_critical_delay_ms),
      unit.name, unit.cell(f.mean_critical_other_ms), unit.name);
  if (f.slo_job_ms) {
    out += fmt::format("Job goodput (job latency <= {} ms): {} of {} jobs, {} jobs/s.\n",
                       *f.slo_job_ms, f.good_jobs, f.completed, fixed4(f.job_goodput));
  }
  const auto col = [&unit](const char* name) { return fmt::format("{} ({})", name, unit.name); };
  const auto groups = [&](const char* key, const std::vector<metrics::CallGroupFigures>& by) {
    std::vector<std::vector<std::string>> table;
    for (const auto& g : by) {
      table.push_back({g.key, std::to_string(g.completed), unit.cell(g.ttft_ms.mean),
                       unit.cell(g.ttft_ms.at(50)), unit.cell(g.ttft_ms.at(95)),
                       unit.cell(g.tpot_ms.mean), percent_cell(g.cache.hit_rate()),
                       percent_cell(g.cache.ideal_hit_rate())});
    }
    return render_grid_table({key, "Calls", col("TTFT mean"), col("TTFT p50"), col("TTFT p95"),
                              col("TPOT mean"), "Cache hit", "Ideal hit"},
                             table, {}, compact);
  };
  out += "By call depth (0: calls that wait for none):\n";
  out += groups("Depth", f.by_depth);
  // By call id when the jobs have few ids (a trace's hundreds go to summary.json and the page).
  if (f.by_call.size() <= kConsoleCallIds && !f.call_ids_capped) {
    out += "By call id:\n";
    out += groups("Call", f.by_call);
  } else {
    out += fmt::format(
        "By call id: {} ids, in summary.json (tokenbench.jobs.by_call) and "
        "report.html.\n",
        f.call_ids_capped ? "over " + std::to_string(f.by_call.size())
                          : std::to_string(f.by_call.size()));
  }
  return out;
}

// Maps a failed request's HTTP status to the error class it was recorded under.
std::string_view class_of_status(int status) {
  if (status == 429) return "rate_limited";
  if (status >= 500) return "http_5xx";
  if (status >= 400) return "http_4xx";
  return "";
}

std::string error_table(const metrics::Summary& s, bool compact) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& [cls, n] : s.errors) {
    std::string statuses;
    for (const auto& [status, count] : s.http_status) {
      if (class_of_status(status) != cls) continue;
      statuses += fmt::format("{}{} x{}", statuses.empty() ? "" : ", ", status, count);
    }
    const auto example = s.error_examples.find(cls);
    rows.push_back(
        {statuses.empty() ? cls : fmt::format("{} (HTTP {})", cls, statuses), std::to_string(n),
         example != s.error_examples.end() ? core::one_line(example->second) : std::string()});
  }
  std::string out;
  if (!rows.empty()) {
    out = render_grid_table({"Error", "Count", "First message"}, rows,
                            {Align::kLeft, Align::kRight, Align::kLeft}, compact);
  }
  // What to try, once per distinct hint.
  std::vector<std::string_view> given;
  for (const auto& [cls, n] : s.errors) {
    const auto error = core::error_class_from_string(cls);
    if (!error) continue;
    std::vector<int> statuses{0};
    for (const auto& [status, count] : s.http_status) {
      if (class_of_status(status) == cls) statuses.push_back(status);
    }
    for (const int status : statuses) {
      const std::string_view hint = core::error_hint(*error, status);
      if (hint.empty() || std::find(given.begin(), given.end(), hint) != given.end()) continue;
      given.push_back(hint);
      out += fmt::format("Hint ({}{}): {}\n", cls, status != 0 ? fmt::format(" {}", status) : "",
                         hint);
    }
  }
  if (s.retried_attempts > 0) {
    std::string classes;
    for (const auto& [cls, n] : s.retried_by_class) {
      classes += fmt::format("{}{} x{}", classes.empty() ? "" : ", ", cls, n);
    }
    out += fmt::format(
        "Retries: {} failed attempts were retried ({}); {} requests completed after a retry.\n",
        s.retried_attempts, classes, s.completed_after_retry);
  }
  return out;
}

std::string run_header(const core::RunConfig& config) {
  std::string out =
      fmt::format("Model {} at {}{}", config.model.empty() ? "?" : core::one_line(config.model),
                  core::redact_query(config.base_url), core::redact_query(config.endpoint));
  if (config.replica_urls.size() > 1) {
    out += fmt::format(" (and {} more replicas)", config.replica_urls.size() - 1);
  }
  if (!config.started_at.empty()) out += ", run started " + config.started_at;
  return out + "\n";
}

}  // namespace

std::string render_grid_table(const std::vector<std::string>& header,
                              const std::vector<std::vector<std::string>>& rows,
                              const std::vector<Align>& align, bool compact) {
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
    if (!compact) out += rule(widths, '-');
  }
  if (compact && !rows.empty()) out += rule(widths, '-');
  return out;
}

std::string significant_cell(double v) {
  if (!is_defined(v)) return std::string(kUndefinedCell);
  if (v == 0.0) return "0";
  // At least two decimals and three significant digits: 784.50, 5.80, 0.300, 0.00160.
  const int magnitude = static_cast<int>(std::floor(std::log10(std::abs(v))));
  const int decimals = std::clamp(2 - magnitude, 2, 12);
  return fmt::format("{:.{}f}", v, decimals);
}

std::string render_console_report(const metrics::Summary& s, const core::RunConfig& config) {
  const ConsoleStyle style = config.console_style;
  const bool compact = style == ConsoleStyle::kCompact;
  const TimeUnit& unit = style == ConsoleStyle::kEvalscopeSeconds ? kSeconds : kMilliseconds;
  std::string out = run_header(config);
  if (s.completed == 0) {
    // Nothing to tabulate: one clear account of what failed.
    const std::string headline =
        fmt::format("{} of {} measured requests failed", s.failed, s.measured);
    out += "No request succeeded: " + headline + ".\n";
    for (const std::string& warning : s.warnings) {
      // The headline says these already.
      if (warning == headline || warning == "no successful requests") continue;
      out += "Warning: " + core::one_line(warning) + "\n";
    }
    if (s.failed > 0) out += error_table(s, compact);
    return out;
  }
  out += "Benchmarking summary:\n";
  out += summary_table(s, config, unit, compact);
  out += fmt::format("Token counts: input from {}; output from {}.\n",
                     sources_text(s.prompt_sources, true), sources_text(s.output_sources, false));
  if (s.cache.reported > 0 || s.cache.ideal_reported > 0) out += cache_line(s);
  out += chunk_line(s);
  if (const auto cost = metrics::cost_figures(s, config.gpu_hour_price, config.gpus)) {
    out += cost_line(*cost);
  }
  for (const std::string& warning : s.warnings) out += "Warning: " + core::one_line(warning) + "\n";
  out += fmt::format(
      "\nPercentile results ({0}; Output and Total (tok/s) as evalscope: tokens / latency; "
      "Decode (tok/s): (output tokens - 1) / (last - first token), the decode rate):\n",
      unit.name);
  out += percentile_table(s, unit, compact);
  if (!s.by_turn.empty()) {
    out += fmt::format("\nBy turn ({} sessions; turn 0 is each session's first request):\n",
                       s.sessions);
    out += turn_table(s, unit, compact);
  }
  if (s.jobs) out += jobs_text(*s.jobs, unit, compact);
  if (s.failed > 0 || s.retried_attempts > 0) {
    out += "\nErrors:\n";
    out += error_table(s, compact);
  }
  return out;
}

std::string defined_cell(double v, const char* format) {
  return metrics::is_defined(v) ? fmt::format(fmt::runtime(format), v) : "-";
}

}  // namespace tokenbench::report
