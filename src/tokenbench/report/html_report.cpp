#include "tokenbench/report/html_report.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <regex>

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
Histogram histogram_of_sorted(const std::vector<double>& sorted, std::size_t bins, bool log) {
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

Cdf cdf_of_sorted(const std::vector<double>& sorted, std::size_t max_points) {
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
json stamp(core::Nanos t, core::Nanos t0) {
  return t == core::kNever ? json() : json(std::round(sec(t - t0) * 1e6) / 1e6);
}

json distribution(std::vector<double> values, bool log, const char* unit) {
  const std::size_t n = values.size();
  sort_finite(values);  // once, for both the histogram and the CDF
  const Histogram h = histogram_of_sorted(values, kHistogramBins, log);
  const Cdf c = cdf_of_sorted(values, kMaxSeriesPoints);
  return json{{"n", n},
              {"unit", unit},
              {"log", log},
              {"edges", h.edges},
              {"counts", h.counts},
              {"cdf_x", c.x},
              {"cdf_y", c.y},
              {"cdf_sampled", n > kMaxSeriesPoints}};
}

bool counted(const core::RequestRecord& r) {
  return r.phase == core::Phase::kMeasure && !r.retried;
}

// The chosen bin width: 1 s, or wider so that the run fits in kMaxSeriesPoints bins.
double bin_width_s(double span_s) {
  double w = 1;
  while (span_s / w > static_cast<double>(kMaxSeriesPoints)) w *= 2;
  return w;
}

// The most requests in flight (sent, not yet done) at any instant of each bin: the step function
// of +1 at each send and -1 at each end, ends before sends at the same instant (as
// metrics::max_concurrency_observed counts), so it never exceeds --max-concurrency.
template <typename BinOf>
std::vector<double> in_flight_peaks(const std::vector<core::RequestRecord>& records,
                                    std::size_t bins, const BinOf& bin_of) {
  std::vector<std::pair<core::Nanos, int>> events;
  for (const auto& r : records) {
    if (r.sent == core::kNever || r.done == core::kNever) continue;
    events.emplace_back(r.sent, +1);
    events.emplace_back(r.done, -1);
  }
  std::sort(events.begin(), events.end());
  std::vector<double> peak(bins, 0);
  double level = 0;
  std::size_t bin = 0;
  for (const auto& [t, delta] : events) {
    const std::size_t b = bin_of(t);
    for (; bin < b; ++bin) peak[bin + 1] = level;  // carried into the bins without an event
    level += delta;
    peak[b] = std::max(peak[b], level);
  }
  return peak;
}

json series_over_time(const std::vector<core::RequestRecord>& records, core::Nanos t0,
                      core::Nanos t1) {
  const double span = std::max(1e-9, sec(t1 - t0));
  const double w = bin_width_s(span);
  const auto bins = static_cast<std::size_t>(std::ceil(span / w)) + 1;
  std::vector<double> tokens(bins, 0), errors(bins, 0), done(bins, 0);
  const auto bin_of = [&](core::Nanos t) {
    return std::min(bins - 1, static_cast<std::size_t>(std::max(0.0, sec(t - t0) / w)));
  };
  for (const auto& r : records) {
    if (r.done == core::kNever) continue;
    const std::size_t b = bin_of(r.done);
    if (r.ok()) {
      done[b] += 1;
      // Output tokens spread over the chunks' arrival (each chunk by its share of the chunks'
      // tokens) when known, else at the end.
      double chunk_tokens = 0;
      for (const auto& c : r.chunks) chunk_tokens += std::max(0, c.tokens);
      if (chunk_tokens > 0 && r.output_tokens > 0) {
        const double scale = static_cast<double>(r.output_tokens) / chunk_tokens;
        for (const auto& c : r.chunks) {
          if (c.t != core::kNever) tokens[bin_of(c.t)] += std::max(0, c.tokens) * scale;
        }
      } else {
        tokens[b] += static_cast<double>(r.output_tokens);
      }
    } else {
      errors[b] += 1;
    }
  }
  json t = json::array();
  for (std::size_t i = 0; i < bins; ++i) {
    tokens[i] /= w;
    t.push_back(static_cast<double>(i) * w);
  }
  return json{{"bin_s", w},
              {"t", std::move(t)},
              {"output_tok_s", tokens},
              {"in_flight", in_flight_peaks(records, bins, bin_of)},
              {"completed", done},
              {"errors", errors}};
}

json timeline(const std::vector<core::RequestRecord>& records, core::Nanos t0) {
  std::vector<std::size_t> order(records.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return records[a].scheduled < records[b].scheduled;
  });
  json rows = {{"scheduled", json::array()},   {"sent", json::array()},
               {"first_token", json::array()}, {"done", json::array()},
               {"outcome", json::array()},     {"index", json::array()}};
  for (std::size_t k : even_sample(order.size(), kMaxTimelineRequests)) {
    const auto& r = records[order[k]];
    rows["index"].push_back(k);
    rows["scheduled"].push_back(stamp(r.scheduled, t0));
    rows["sent"].push_back(stamp(r.sent, t0));
    rows["first_token"].push_back(stamp(r.first_token, t0));
    rows["done"].push_back(stamp(r.done, t0));
    rows["outcome"].push_back(r.ok() ? "ok" : std::string(core::to_string(r.error)));
  }
  rows["total"] = records.size();
  return rows;
}

json errors_table(const std::vector<core::RequestRecord>& records) {
  struct Group {
    std::size_t count = 0;
    std::string example;
  };
  std::map<std::pair<std::string, int>, Group> groups;
  for (const auto& r : records) {
    if (r.ok() || !counted(r)) continue;
    auto& g = groups[{std::string(core::to_string(r.error)), r.http_status}];
    ++g.count;
    if (g.example.empty()) g.example = r.error_message.substr(0, 500);
  }
  json out = json::array();
  for (const auto& [key, g] : groups) {
    out.push_back({{"class", key.first},
                   {"status", key.second},
                   {"count", g.count},
                   {"example", redact_urls(g.example)}});
  }
  return out;
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
  const auto idx = even_sample(notes.scrapes.size(), kMaxSeriesPoints);
  if (!idx.empty()) {
    json t = json::array(), running = json::array(), waiting = json::array(), kv = json::array();
    const auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(); };
    for (std::size_t i : idx) {
      const auto& s = notes.scrapes[i];
      if (!s.ok || s.t == core::kNever) continue;
      t.push_back(sec(s.t) * factor - sec(t0));
      running.push_back(opt(s.snapshot.running));
      waiting.push_back(opt(s.snapshot.waiting));
      kv.push_back(opt(s.snapshot.kv_cache_usage_pct));
    }
    out["server"] = {{"t", t},
                     {"running", running},
                     {"waiting", waiting},
                     {"kv_cache_pct", kv},
                     {"sampled", notes.scrapes.size() > kMaxSeriesPoints}};
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

json html_report_data(const std::vector<core::RequestRecord>& records, const json& summary_json,
                      const std::string& console, const std::string& config_yaml,
                      const records::RunNotes& notes) {
  json data = json::object();
  data["config_yaml"] = redact_urls(config_yaml);
  data["console"] = redact_urls(console);
  json key = json::array();
  for (const auto& [k, v] : summary_json.items()) {
    if (v.is_number() || v.is_string() || v.is_boolean()) key.push_back({k, v});
  }
  data["key"] = std::move(key);

  core::Nanos t0 = std::numeric_limits<core::Nanos>::max();
  core::Nanos t1 = std::numeric_limits<core::Nanos>::min();
  for (const auto& r : records) {
    for (core::Nanos t : {r.scheduled, r.sent, r.done}) {
      if (t == core::kNever) continue;
      t0 = std::min(t0, t);
      t1 = std::max(t1, t);
    }
  }
  if (t0 > t1) t0 = t1 = 0;
  FigureValues v = figure_values(records);
  data["kind"] = "run";
  data["distributions"] = {{"TTFT", distribution(std::move(v.ttft), true, "ms")},
                           {"TPOT", distribution(std::move(v.tpot), true, "ms")},
                           {"ITL", distribution(std::move(v.itl), true, "ms")},
                           {"E2EL", distribution(std::move(v.e2el), true, "ms")}};
  data["timeline"] = timeline(records, t0);
  data["series"] = series_over_time(records, t0, t1);
  data["errors"] = errors_table(records);
  const json* tb = summary_json.contains("tokenbench") ? &summary_json["tokenbench"] : nullptr;
  data["checks"] = tb && tb->contains("checks") ? (*tb)["checks"] : json();
  data["percentiles"] = tb && tb->contains("distributions") ? (*tb)["distributions"] : json();
  data["warnings"] = tb && tb->contains("warnings") ? (*tb)["warnings"] : json::array();
  data["buckets"] = tb && tb->contains("buckets") ? (*tb)["buckets"] : json::array();
  data["time"] = time_basis(summary_json);
  data["telemetry"] = telemetry_series(notes, t0, model_time_factor_of(summary_json));
  return data;
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
  return page;
}

}  // namespace tokenbench::report
