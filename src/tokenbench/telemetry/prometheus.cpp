#include "tokenbench/telemetry/prometheus.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "tokenbench/core/names.h"

namespace tokenbench::telemetry {
namespace {

constexpr std::string_view kSuffixes[] = {"_bucket", "_count", "_sum",    "_created",
                                          "_total",  "_info",  "_gcount", "_gsum"};

bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

// The names of # TYPE lines; a type is written as its first name. "unknown" is OpenMetrics' name
// for the text format's "untyped".
constexpr auto kMetricTypeNames = core::make_names<MetricType>({
    {MetricType::kUntyped, "untyped"},
    {MetricType::kCounter, "counter"},
    {MetricType::kGauge, "gauge"},
    {MetricType::kHistogram, "histogram"},
    {MetricType::kSummary, "summary"},
    {MetricType::kInfo, "info"},
    {MetricType::kStateSet, "stateset"},
    {MetricType::kGaugeHistogram, "gaugehistogram"},
    {MetricType::kUntyped, "unknown"},
});

// Does a sample named `sample` belong to family `family` of `type`?
bool belongs(std::string_view sample, std::string_view family, MetricType type) {
  if (sample == family) return true;
  if (sample.size() <= family.size() || sample.substr(0, family.size()) != family) return false;
  const std::string_view suffix = sample.substr(family.size());
  switch (type) {
    case MetricType::kCounter:
      return suffix == "_total" || suffix == "_created";
    case MetricType::kHistogram:
      return suffix == "_bucket" || suffix == "_count" || suffix == "_sum" || suffix == "_created";
    case MetricType::kGaugeHistogram:
      return suffix == "_bucket" || suffix == "_gcount" || suffix == "_gsum";
    case MetricType::kSummary:
      return suffix == "_count" || suffix == "_sum" || suffix == "_created";
    case MetricType::kInfo:
      return suffix == "_info";
    default:
      return false;
  }
}

std::optional<double> parse_value(std::string_view s) {
  if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "+Inf" || s == "Inf" || s == "+inf" || s == "inf") {
    return std::numeric_limits<double>::infinity();
  }
  if (s == "-Inf" || s == "-inf") return -std::numeric_limits<double>::infinity();
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Reads one line's tokens; every error names the line.
class LineReader {
 public:
  LineReader(std::string_view line, std::size_t number) : line_(line), number_(number) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw ParseError(fmt::format("line {}: {}", number_, what));
  }
  bool done() const { return pos_ >= line_.size(); }
  char peek() const { return done() ? '\0' : line_[pos_]; }
  void skip_blanks() {
    while (!done() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
  }
  std::string_view name() {
    const std::size_t start = pos_;
    if (done() || !name_start(line_[pos_])) fail("a metric or label name was expected");
    while (!done() && name_char(line_[pos_])) ++pos_;
    return line_.substr(start, pos_ - start);
  }
  void expect(char c) {
    if (peek() != c) fail(fmt::format("'{}' was expected", c));
    ++pos_;
  }
  std::string quoted() {
    expect('"');
    std::string out;
    while (true) {
      if (done()) fail("a label value is not closed with '\"'");
      const char c = line_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (done()) fail("a label value ends in '\\'");
      const char e = line_[pos_++];
      if (e == 'n') {
        out.push_back('\n');
      } else if (e == '\\' || e == '"') {
        out.push_back(e);
      } else {
        fail(fmt::format("bad escape '\\{}' in a label value (only \\\\, \\\" and \\n)", e));
      }
    }
  }
  std::string_view word() {
    skip_blanks();
    const std::size_t start = pos_;
    while (!done() && line_[pos_] != ' ' && line_[pos_] != '\t') ++pos_;
    return line_.substr(start, pos_ - start);
  }
  std::string_view rest() {
    skip_blanks();
    return line_.substr(std::min(pos_, line_.size()));
  }

 private:
  std::string_view line_;
  std::size_t number_;
  std::size_t pos_ = 0;
};

std::string unescape_help(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == 'n' || s[i + 1] == '\\')) {
      out.push_back(s[i + 1] == 'n' ? '\n' : '\\');
      ++i;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

bool includes(const std::vector<Label>& labels, const std::vector<Label>& match) {
  return std::all_of(match.begin(), match.end(), [&labels](const Label& m) {
    return std::find(labels.begin(), labels.end(), m) != labels.end();
  });
}

}  // namespace

std::string_view to_string(MetricType type) { return kMetricTypeNames.name(type); }

std::optional<std::string_view> Sample::label(std::string_view name) const {
  for (const auto& l : labels) {
    if (l.name == name) return std::string_view(l.value);
  }
  return std::nullopt;
}

const Family* Exposition::find(std::string_view name) const {
  for (const auto& f : families) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

Exposition parse_exposition(std::string_view text, const ParseLimits& limits) {
  if (text.size() > limits.max_bytes) {
    throw ParseError(fmt::format("the exposition is {} bytes, over the {} bytes accepted",
                                 text.size(), limits.max_bytes));
  }
  Exposition out;
  std::unordered_map<std::string, std::size_t> index;  // family name -> position
  const auto family_for = [&](std::string_view name) -> Family& {
    auto it = index.find(std::string(name));
    if (it == index.end()) {
      it = index.emplace(std::string(name), out.families.size()).first;
      out.families.push_back(Family{std::string(name), MetricType::kUntyped, "", "", {}});
    }
    return out.families[it->second];
  };
  std::size_t number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t eol = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > limits.max_line_bytes) {
      throw ParseError(fmt::format("line {}: {} bytes, over the {} bytes accepted for one line",
                                   number, line.size(), limits.max_line_bytes));
    }
    if (out.openmetrics) {
      if (line.empty() && pos >= text.size()) break;
      throw ParseError(fmt::format("line {}: text after '# EOF'", number));
    }
    if (line.empty()) continue;
    LineReader r(line, number);
    if (line.front() == '#') {
      if (line == "# EOF") {
        out.openmetrics = true;
        continue;
      }
      r.expect('#');
      const std::string_view keyword = r.word();
      if (keyword != "HELP" && keyword != "TYPE" && keyword != "UNIT") continue;  // a comment
      r.skip_blanks();
      const std::string name(r.name());
      const std::string_view rest = r.rest();
      Family& f = family_for(name);
      if (keyword == "HELP") {
        f.help = unescape_help(rest);
      } else if (keyword == "UNIT") {
        f.unit = std::string(rest);
      } else {
        const auto type = kMetricTypeNames.parse(rest);
        if (!type) r.fail(fmt::format("unknown metric type '{}' for {}", rest, name));
        if (!f.samples.empty()) r.fail(fmt::format("# TYPE of {} after its samples", name));
        f.type = *type;
      }
      continue;
    }
    Sample s;
    s.name = std::string(r.name());
    if (r.peek() == '{') {
      r.expect('{');
      r.skip_blanks();
      while (r.peek() != '}') {
        Label l;
        l.name = std::string(r.name());
        r.skip_blanks();
        r.expect('=');
        r.skip_blanks();
        l.value = r.quoted();
        s.labels.push_back(std::move(l));
        r.skip_blanks();
        if (r.peek() == ',') {
          r.expect(',');
          r.skip_blanks();
        } else if (r.peek() != '}') {
          r.fail("',' or '}' was expected after a label");
        }
      }
      r.expect('}');
    }
    if (r.peek() != ' ' && r.peek() != '\t') r.fail("a space and a value were expected");
    const std::string_view value_text = r.word();
    const auto value = parse_value(value_text);
    if (!value) r.fail(fmt::format("'{}' is not a number", value_text));
    s.value = *value;
    const std::string_view tail = r.rest();
    if (!tail.empty() && tail.front() != '#') {
      // A timestamp (milliseconds, or OpenMetrics seconds); then maybe an exemplar.
      const std::string_view ts = tail.substr(0, tail.find_first_of(" \t"));
      if (!parse_value(ts)) r.fail(fmt::format("'{}' is not a timestamp", ts));
    }
    if (++out.sample_count > limits.max_samples) {
      throw ParseError(
          fmt::format("line {}: more than {} samples in one scrape", number, limits.max_samples));
    }
    // The declared family this sample belongs to: its own name, or the name without a suffix.
    Family* target = nullptr;
    if (auto it = index.find(s.name); it != index.end()) target = &out.families[it->second];
    if (target == nullptr || target->type == MetricType::kUntyped) {
      for (std::string_view suffix : kSuffixes) {
        const std::string_view n(s.name);
        if (n.size() <= suffix.size() || n.substr(n.size() - suffix.size()) != suffix) continue;
        const auto it = index.find(std::string(n.substr(0, n.size() - suffix.size())));
        if (it != index.end() && belongs(n, it->first, out.families[it->second].type)) {
          target = &out.families[it->second];
          break;
        }
      }
    }
    if (target == nullptr) target = &family_for(s.name);
    target->samples.push_back(std::move(s));
  }
  return out;
}

std::optional<Histogram> histogram_of(const Exposition& e, std::string_view name,
                                      const std::vector<Label>& match) {
  const Family* f = e.find(name);
  if (f == nullptr || f->type != MetricType::kHistogram) return std::nullopt;
  Histogram h;
  std::map<double, double> buckets;
  const std::string bucket = f->name + "_bucket";
  const std::string sum = f->name + "_sum";
  const std::string count = f->name + "_count";
  for (const Sample& s : f->samples) {
    if (!includes(s.labels, match)) continue;
    if (s.name == bucket) {
      const auto le = s.label("le");
      const auto bound = le ? parse_value(*le) : std::nullopt;
      if (bound) buckets[*bound] += s.value;
    } else if (s.name == sum) {
      h.sum += s.value;
    } else if (s.name == count) {
      h.count += s.value;
    }
  }
  h.buckets.assign(buckets.begin(), buckets.end());
  return h;
}

Histogram histogram_delta(const Histogram& after, const Histogram& before) {
  if (after.count < before.count) return after;  // the server restarted: counters reset
  Histogram d;
  d.sum = after.sum - before.sum;
  d.count = after.count - before.count;
  std::map<double, double> buckets(after.buckets.begin(), after.buckets.end());
  for (const auto& [le, n] : before.buckets) buckets[le] -= n;
  for (auto& [le, n] : buckets) n = std::max(0.0, n);
  d.buckets.assign(buckets.begin(), buckets.end());
  return d;
}

double histogram_quantile(const Histogram& h, double q) {
  if (h.buckets.empty() || !(q > 0 && q < 1)) return std::numeric_limits<double>::quiet_NaN();
  const double total = h.buckets.back().second;
  if (!(total > 0)) return std::numeric_limits<double>::quiet_NaN();
  const double rank = q * total;
  double lower = 0;
  double below = 0;
  for (const auto& [le, cumulative] : h.buckets) {
    if (cumulative >= rank) {
      if (std::isinf(le)) return lower;  // the highest finite bound
      if (cumulative == below) return le;
      return lower + (le - lower) * (rank - below) / (cumulative - below);
    }
    lower = le;
    below = cumulative;
  }
  return lower;
}

double bounded_quantile(const Histogram& h, double q, double max_ratio) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (h.buckets.empty() || !(q > 0 && q < 1)) return nan;
  const double rank = q * h.buckets.back().second;
  double lower = 0;
  for (const auto& [le, cumulative] : h.buckets) {
    if (cumulative >= rank && cumulative > 0) {
      if (!(lower > 0) || std::isinf(le) || le > lower * max_ratio) return nan;
      return histogram_quantile(h, q);
    }
    lower = le;
  }
  return nan;
}

std::optional<double> sum_of(const Exposition& e, std::string_view name, std::string_view sample,
                             const std::vector<Label>& match) {
  const Family* f = e.find(name);
  if (f == nullptr) return std::nullopt;
  const std::string total_name = f->name + "_total";  // an OpenMetrics counter's sample
  std::optional<double> total;
  for (const Sample& s : f->samples) {
    const bool named =
        sample.empty() ? (s.name == f->name || s.name == total_name) : s.name == sample;
    if (!named || !includes(s.labels, match)) continue;
    total = total.value_or(0) + s.value;
  }
  return total;
}

}  // namespace tokenbench::telemetry
