#include "tokenbench/report/html_report.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <span>

#include "tokenbench/metrics/request_metrics.h"
#include "tokenbench/report/html_assets.h"  // generated at configure time (CMakeLists.txt)

namespace tokenbench::report {

std::string escape_json_for_html(std::string_view json) {
  std::string out;
  out.reserve(json.size() + json.size() / 16);
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < json.size() && json[i + 1] == '\x80' &&
               (json[i + 2] == '\xA8' || json[i + 2] == '\xA9')) {
      out += json[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<std::size_t> even_sample(std::size_t n, std::size_t max) {
  std::vector<std::size_t> out;
  if (n == 0 || max == 0) return out;
  if (n <= max) {
    out.resize(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = i;
    return out;
  }
  if (max == 1) return {0};
  out.reserve(max);
  for (std::size_t k = 0; k < max; ++k) {
    // k * (n-1) / (max-1), rounded down, without overflow for any realistic n.
    out.push_back(static_cast<std::size_t>(static_cast<long double>(k) * (n - 1) / (max - 1)));
  }
  return out;
}

namespace {

// The histogram of `sorted` (ascending, all finite). A value's bin is a non-decreasing function
// of the value, so each bin's first value is found by binary search: O(bins log n), and exactly
// the bins a pass over every value would give.
Histogram histogram_of_sorted(std::span<const double> sorted, std::size_t bins, bool log) {
  Histogram h;
  if (sorted.empty() || bins == 0) return h;
  double lo = sorted.front();
  double hi = sorted.back();
  if (log) {
    const auto first_positive = std::upper_bound(sorted.begin(), sorted.end(), 0.0);
    if (first_positive == sorted.end()) {
      log = false;  // nothing positive
    } else {
      lo = *first_positive;
    }
  }
  if (hi <= lo) hi = lo + (lo == 0 ? 1 : std::abs(lo) * 0.01);
  h.edges.resize(bins + 1);
  h.counts.assign(bins, 0);
  const double a = log ? std::log(lo) : lo;
  const double b = log ? std::log(hi) : hi;
  for (std::size_t i = 0; i <= bins; ++i) {
    const double e = a + (b - a) * static_cast<double>(i) / static_cast<double>(bins);
    h.edges[i] = log ? std::exp(e) : e;
  }
  const auto bin_of = [&](double v) {
    const double x = log ? (v > 0 ? std::log(v) : a) : v;
    const auto bin = static_cast<std::ptrdiff_t>((x - a) / (b - a) * static_cast<double>(bins));
    return static_cast<std::size_t>(
        std::clamp<std::ptrdiff_t>(bin, 0, static_cast<std::ptrdiff_t>(bins) - 1));
  };
  auto from = sorted.begin();
  for (std::size_t i = 0; i < bins && from != sorted.end(); ++i) {
    const auto to =
        std::partition_point(from, sorted.end(), [&](double v) { return bin_of(v) <= i; });
    h.counts[i] = static_cast<double>(to - from);
    from = to;
  }
  return h;
}

Cdf cdf_of_sorted(std::span<const double> sorted, std::size_t max_points) {
  Cdf c;
  const std::size_t n = sorted.size();
  for (std::size_t i : even_sample(n, max_points)) {
    c.x.push_back(sorted[i]);
    c.y.push_back(static_cast<double>(i + 1) / static_cast<double>(n));
  }
  return c;
}

// `values` without the non-finite ones, ascending.
void sort_finite(std::vector<double>& values) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  std::sort(values.begin(), values.end());
}

}  // namespace

Histogram make_histogram(std::vector<double> values, std::size_t bins, bool log) {
  sort_finite(values);
  return histogram_of_sorted(values, bins, log);
}

Cdf make_cdf(std::vector<double> values, std::size_t max_points) {
  sort_finite(values);
  return cdf_of_sorted(values, max_points);
}

double model_time_factor_of(const nlohmann::json& summary_json) {
  const nlohmann::json* config = nullptr;
  if (summary_json.contains("tokenbench") && summary_json["tokenbench"].contains("config")) {
    config = &summary_json["tokenbench"]["config"];
  }
  if (config == nullptr || !config->value("sim_time", false)) return 1.0;
  const double scale = config->value("sim_time_scale", 1.0);
  return scale > 0 ? scale : 1.0;
}

std::string redact_urls(const std::string& text) {
  static const std::regex userinfo(R"(([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]*@)");
  return std::regex_replace(text, userinfo, "$1<redacted>@");
}

namespace {

using nlohmann::json;

constexpr std::size_t kHistogramBins = 60;

double sec(core::Nanos t) { return static_cast<double>(t) / 1e9; }
// Values standing for a sketched distribution: its quantiles at the middles of kSketchPoints
// equal shares, each worth count / kSketchPoints values (within the sketch's relative error).
constexpr std::size_t kSketchPoints = 4096;

json distribution(const metrics::StreamingDistribution& d, bool log, const char* unit) {
  const std::size_t n = d.count();
  std::vector<double> stand_in;
  std::span<const double> sorted = d.sorted_values();
  double weight = 1;
  if (!d.exact()) {
    stand_in.reserve(kSketchPoints);
    for (std::size_t i = 0; i < kSketchPoints; ++i) {
      stand_in.push_back(
          d.quantile(100.0 * (static_cast<double>(i) + 0.5) / static_cast<double>(kSketchPoints)));
    }
    sorted = stand_in;
    weight = static_cast<double>(n) / static_cast<double>(kSketchPoints);
  }
  Histogram h = histogram_of_sorted(sorted, kHistogramBins, log);
  for (double& c : h.counts) c *= weight;
  const Cdf c = cdf_of_sorted(sorted, kMaxSeriesPoints);
  return json{{"n", n},
              {"unit", unit},
              {"log", log},
              {"edges", h.edges},
              {"counts", h.counts},
              {"cdf_x", c.x},
              {"cdf_y", c.y},
              {"cdf_sampled", n > kMaxSeriesPoints},
              {"relative_error", d.relative_error()}};
}

bool counted(const core::RequestRecord& r) {
  return r.phase == core::Phase::kMeasure && !r.retried;
}

// What the page's times are: {"model": true, "scale": X} when they are the simulator's model
// time (--sim-time), and serve-sim's scale even without --sim-time (1 when not a simulator).
json time_basis(const json& summary_json) {
  double sim_scale = 1.0;
  if (summary_json.contains("tokenbench") && summary_json["tokenbench"].contains("config")) {
    sim_scale = summary_json["tokenbench"]["config"].value("sim_time_scale", 1.0);
  }
  const double factor = model_time_factor_of(summary_json);
  return {{"model", factor != 1.0}, {"scale", factor}, {"sim_scale", sim_scale}};
}

// Telemetry's series: `factor` turns their real-time stamps into the records' time (model time
// under --sim-time), so that they line up with the series over time.
json telemetry_series(const records::RunNotes& notes, core::Nanos t0, double factor) {
  json out = json::object();
  // The first source's gauges; with several, each one's running requests beside the others'.
  const auto& sources = notes.scrape_sources;
  const auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(); };
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const auto& scrapes = sources[k].scrapes;
    const auto idx = even_sample(scrapes.size(), kMaxSeriesPoints);
    json t = json::array(), running = json::array(), waiting = json::array(), kv = json::array();
    for (std::size_t i : idx) {
      const auto& s = scrapes[i];
      if (!s.ok || s.t == core::kNever) continue;
      t.push_back(sec(s.t) * factor - sec(t0));
      running.push_back(opt(s.snapshot.running));
      waiting.push_back(opt(s.snapshot.waiting));
      kv.push_back(opt(s.snapshot.kv_cache_usage_pct));
    }
    if (idx.empty()) continue;
    if (!out.contains("server")) {
      out["server"] = {{"t", t},
                       {"running", running},
                       {"waiting", waiting},
                       {"kv_cache_pct", kv},
                       {"sampled", scrapes.size() > kMaxSeriesPoints}};
    }
    if (sources.size() > 1) {
      out["servers"].push_back({{"name", sources[k].name}, {"t", t}, {"running", running}});
    }
  }
  const auto gidx = even_sample(notes.gpu_samples.size(), kMaxSeriesPoints);
  if (!gidx.empty()) {
    json t = json::array(), util = json::array(), power = json::array();
    const auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(); };
    for (std::size_t i : gidx) {
      const auto& s = notes.gpu_samples[i];
      if (s.t == core::kNever) continue;
      t.push_back(sec(s.t) * factor - sec(t0));
      util.push_back(opt(s.util_pct));
      power.push_back(opt(s.power_w));
    }
    out["gpu"] = {{"t", t},
                  {"util_pct", util},
                  {"power_w", power},
                  {"sampled", notes.gpu_samples.size() > kMaxSeriesPoints}};
  }
  return out;
}

// The client's read lag over time, on the throughput series' bins (`series`: page.series()):
// per bin, the worst p99 and the maximum of the workers' windows that ended in it (ms; the
// client's own time, real even under --sim-time, which moves only the x axis by `factor`).
void add_read_lag_series(const records::RunNotes& notes, core::Nanos t0, double factor,
                         json& series) {
  if (notes.read_lag.empty() || !series.contains("t") || series["t"].empty()) return;
  const std::vector<double> starts = series["t"].get<std::vector<double>>();
  std::vector<json> p99(starts.size()), max(starts.size());
  for (const auto& log : notes.read_lag) {
    for (const auto& w : log.windows) {
      const double x = sec(w.end) * factor - sec(t0);
      const auto after = std::upper_bound(starts.begin(), starts.end(), x);
      const std::size_t b =
          after == starts.begin() ? 0 : static_cast<std::size_t>(after - starts.begin()) - 1;
      const double wp99 = core::to_ms(w.p99), wmax = core::to_ms(w.max);
      if (p99[b].is_null() || wp99 > p99[b].get<double>()) p99[b] = wp99;
      if (max[b].is_null() || wmax > max[b].get<double>()) max[b] = wmax;
    }
  }
  series["read_lag_p99_ms"] = p99;
  series["read_lag_max_ms"] = max;
}

}  // namespace

FigureValues figure_values(const std::vector<core::RequestRecord>& records) {
  FigureValues v;
  std::size_t chunk_total = 0;
  for (const auto& r : records) chunk_total += r.chunks.size();
  v.itl.reserve(chunk_total);
  for (const auto& r : records) {
    if (!counted(r) || !r.ok() || r.nonstream_sample) continue;
    const auto m = metrics::derive_request_metrics(r);
    if (m.ttft_ms) v.ttft.push_back(*m.ttft_ms);
    if (m.tpot_ms) v.tpot.push_back(*m.tpot_ms);
    if (m.e2el_ms) v.e2el.push_back(*m.e2el_ms);
    v.itl.insert(v.itl.end(), m.itl_ms.begin(), m.itl_ms.end());
  }
  return v;
}

json figure_cdfs(const std::vector<core::RequestRecord>& records, std::size_t max_points) {
  FigureValues v = figure_values(records);
  json out = json::object();
  const auto put = [&out, max_points](const char* name, std::vector<double> values) {
    const std::size_t n = values.size();
    const Cdf c = make_cdf(std::move(values), max_points);
    out[name] = {{"n", n}, {"x", c.x}, {"y", c.y}};
  };
  put("TTFT", std::move(v.ttft));
  put("TPOT", std::move(v.tpot));
  put("ITL", std::move(v.itl));
  put("E2EL", std::move(v.e2el));
  return out;
}

json html_report_data(const RunPageBuilder& page, const metrics::SummaryBuilder& figures,
                      const json& summary_json, const std::string& console,
                      const std::string& config_yaml, const records::RunNotes& notes) {
  json data = json::object();
  data["config_yaml"] = redact_urls(config_yaml);
  data["console"] = redact_urls(console);
  json key = json::array();
  for (const auto& [k, v] : summary_json.items()) {
    if (v.is_number() || v.is_string() || v.is_boolean()) key.push_back({k, v});
  }
  data["key"] = std::move(key);
  data["kind"] = "run";
  data["distributions"] = {{"TTFT", distribution(figures.ttft(), true, "ms")},
                           {"TPOT", distribution(figures.tpot(), true, "ms")},
                           {"ITL", distribution(figures.itl(), true, "ms")},
                           {"E2EL", distribution(figures.e2el(), true, "ms")}};
  data["timeline"] = page.timeline();
  data["series"] = page.series();
  add_read_lag_series(notes, page.t0(), model_time_factor_of(summary_json), data["series"]);
  data["errors"] = page.errors();
  data["jobs"] = page.jobs();
  const json* tb = summary_json.contains("tokenbench") ? &summary_json["tokenbench"] : nullptr;
  data["checks"] = tb && tb->contains("checks") ? (*tb)["checks"] : json();
  data["verdict"] = tb && tb->contains("verdict") ? (*tb)["verdict"] : json();
  data["job_figures"] = tb && tb->contains("jobs") ? (*tb)["jobs"] : json();
  data["cost"] = tb && tb->contains("cost") ? (*tb)["cost"] : json();
  data["percentiles"] = tb && tb->contains("distributions") ? (*tb)["distributions"] : json();
  data["warnings"] = tb && tb->contains("warnings") ? (*tb)["warnings"] : json::array();
  data["buckets"] = tb && tb->contains("buckets") ? (*tb)["buckets"] : json::array();
  data["mix"] = tb && tb->contains("mix") ? (*tb)["mix"] : json();
  data["servers"] = tb && tb->contains("servers")  ? (*tb)["servers"]
                    : tb && tb->contains("server") ? json::array({(*tb)["server"]})
                                                   : json::array();
  data["time"] = time_basis(summary_json);
  data["telemetry"] = telemetry_series(notes, page.t0(), model_time_factor_of(summary_json));
  return data;
}

json html_report_data(const std::vector<core::RequestRecord>& records, const json& summary_json,
                      const std::string& console, const std::string& config_yaml,
                      const records::RunNotes& notes) {
  RunPageBuilder page;
  metrics::SummaryBuilder figures(metrics::SummaryOptions{});
  for (const auto& r : records) {
    page.add(r);
    figures.add(r);
  }
  return html_report_data(page, figures, summary_json, console, config_yaml, notes);
}

std::string render_html_report(const json& data) {
  std::string page(html_assets::kTemplate);
  // Each mark is looked for after the previous insertion, in the template's order, so that a
  // mark's text inside inserted data is never taken for the template's own.
  std::size_t from = 0;
  const auto put = [&page, &from](std::string_view mark, std::string_view text) {
    const auto at = page.find(mark, from);
    if (at == std::string::npos) return;
    page.replace(at, mark.size(), text);
    from = at + text.size();
  };
  // The embedded assets are trusted build inputs; the data blob is escaped.
  put("/*@UPLOT_CSS@*/", html_assets::kUplotCss);
  put("/*@REPORT_CSS@*/", html_assets::kReportCss);
  put("/*@DATA@*/",
      escape_json_for_html(data.dump(-1, ' ', false, json::error_handler_t::replace)));
  put("/*@UPLOT_JS@*/", html_assets::kUplotJs);
  put("/*@REPORT_JS@*/", html_assets::kReportJs);
  put("/*@EXPERIMENT_JS@*/", html_assets::kExperimentJs);
  put("/*@HISTORY_JS@*/", html_assets::kHistoryJs);
  return page;
}

}  // namespace tokenbench::report
