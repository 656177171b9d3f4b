#include "tokenbench/report/otlp_export.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string_view>
#include <tuple>

#include "tokenbench/core/request_mix.h"
#include "tokenbench/core/version.h"
#include "tokenbench/metrics/request_metrics.h"

namespace tokenbench::report {
namespace {

using nlohmann::json;

constexpr int kCumulative = 2;  // AggregationTemporality: AGGREGATION_TEMPORALITY_CUMULATIVE

// gen_ai.operation.name and gen_ai.provider.name of an API dialect: the conventions' well-known
// values where one applies (the OpenAI-compatible APIs are "openai" as the conventions' OpenAI
// instrumentations call them, whatever server answers), else the dialect's own name.
std::pair<std::string, std::string> operation_of(core::ApiKind api) {
  switch (api) {
    case core::ApiKind::kOpenAIChat:
    case core::ApiKind::kOpenAIResponses:
      return {"chat", "openai"};
    case core::ApiKind::kOpenAICompletions:
      return {"text_completion", "openai"};
    case core::ApiKind::kEmbeddings:
      return {"embeddings", "openai"};
    case core::ApiKind::kAnthropicMessages:
      return {"chat", "anthropic"};
    case core::ApiKind::kSglangGenerate:
      return {"text_completion", "sglang"};
    case core::ApiKind::kRerank:
    case core::ApiKind::kScore:
      break;
  }
  const std::string name(core::to_string(api));
  return {name, name};
}

// server.address and server.port of an http(s) URL (the scheme's port when it names none); an
// empty address when it has no host.
std::pair<std::string, std::int64_t> address_of(const std::string& url) {
  std::string_view rest(url);
  std::int64_t port = 80;
  if (rest.rfind("https://", 0) == 0) {
    rest.remove_prefix(8);
    port = 443;
  } else if (rest.rfind("http://", 0) == 0) {
    rest.remove_prefix(7);
  }
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
  std::string_view host = rest;
  std::string_view port_text;
  if (rest.starts_with('[')) {  // [::1]:8000
    const auto close = rest.find(']');
    host = rest.substr(1, close == std::string_view::npos ? rest.size() - 1 : close - 1);
    if (close != std::string_view::npos && close + 1 < rest.size() && rest[close + 1] == ':') {
      port_text = rest.substr(close + 2);
    }
  } else if (const auto colon = rest.rfind(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    port_text = rest.substr(colon + 1);
  }
  if (!port_text.empty()) {
    std::int64_t p = 0;
    for (const char c : port_text) {
      if (c < '0' || c > '9' || p > 65535) return {std::string(host), port};
      p = p * 10 + (c - '0');
    }
    port = p;
  }
  return {std::string(host), port};
}

json key_value(const std::string& key, const json& value) {
  if (value.is_string()) return {{"key", key}, {"value", {{"stringValue", value}}}};
  if (value.is_boolean()) return {{"key", key}, {"value", {{"boolValue", value}}}};
  if (value.is_number_integer()) {
    return {{"key", key}, {"value", {{"intValue", std::to_string(value.get<std::int64_t>())}}}};
  }
  return {{"key", key}, {"value", {{"doubleValue", value.get<double>()}}}};
}

json attributes_json(const std::vector<OtlpAttribute>& attributes) {
  json out = json::array();
  for (const auto& [key, value] : attributes) out.push_back(key_value(key, value));
  return out;
}

// Times of every point: cumulative from the run's start to the end of its measure phase.
struct PointTimes {
  std::string start;
  std::string end;
};

json histogram_metric(const char* name, const char* unit, const char* description,
                      const std::map<PointKey, ExplicitHistogram>& points,
                      std::span<const double> bounds, const GenAiFigures& genai,
                      const PointTimes& times) {
  json data_points = json::array();
  for (const auto& [key, h] : points) {
    json counts = json::array();
    for (const std::uint64_t n : h.buckets) counts.push_back(std::to_string(n));
    data_points.push_back(
        {{"attributes", attributes_json(genai.attributes(key))},
         {"startTimeUnixNano", times.start},
         {"timeUnixNano", times.end},
         {"count", std::to_string(h.count)},
         {"sum", h.sum},
         {"bucketCounts", std::move(counts)},
         {"explicitBounds", json(std::vector<double>(bounds.begin(), bounds.end()))},
         {"min", h.min},
         {"max", h.max}});
  }
  return {{"name", name},
          {"unit", unit},
          {"description", description},
          {"histogram",
           {{"aggregationTemporality", kCumulative}, {"dataPoints", std::move(data_points)}}}};
}

// The unit (UCUM) of a summary.json figure, from its name.
std::string unit_of(const std::string& key) {
  static const std::map<std::string, std::string, std::less<>> kUnits{
      {"duration", "s"},
      {"num_prompts", "{request}"},
      {"completed", "{request}"},
      {"failed", "{request}"},
      {"max_concurrency", "{request}"},
      {"max_concurrent_requests", "{request}"},
      {"total_input_tokens", "{token}"},
      {"total_output_tokens", "{token}"},
      {"request_rate", "{request}/s"},
      {"request_throughput", "{request}/s"},
      {"request_goodput", "{request}/s"},
      {"output_throughput", "{token}/s"},
      {"total_token_throughput", "{token}/s"},
      {"max_output_tokens_per_s", "{token}/s"},
      {"usd_per_million_output_tokens", "{USD}"},
      {"usd_per_million_total_tokens", "{USD}"},
      {"usd_per_request", "{USD}"},
  };
  if (const auto it = kUnits.find(key); it != kUnits.end()) return it->second;
  if (key.size() > 3 && key.ends_with("_ms")) return "ms";
  return "1";
}

// Gauges by name, each with its points, in the order first met.
class Gauges {
 public:
  Gauges(std::vector<OtlpAttribute> base, std::string time)
      : base_(std::move(base)), time_(std::move(time)) {}

  void add(const std::string& key, const std::string& description, double value,
           const std::vector<OtlpAttribute>& extra = {}) {
    if (!std::isfinite(value)) return;  // an undefined figure is left out
    const std::string name = "tokenbench." + key;
    auto it = index_.find(name);
    if (it == index_.end()) {
      it = index_.emplace(name, metrics_.size()).first;
      metrics_.push_back({{"name", name},
                          {"unit", unit_of(key.substr(key.find('.') + 1))},
                          {"description", description},
                          {"gauge", {{"dataPoints", json::array()}}}});
    }
    std::vector<OtlpAttribute> attributes = base_;
    for (const auto& e : extra) {  // replaces the base's attribute of the same key
      const auto same = std::find_if(attributes.begin(), attributes.end(),
                                     [&](const OtlpAttribute& a) { return a.first == e.first; });
      if (same != attributes.end()) {
        same->second = e.second;
      } else {
        attributes.push_back(e);
      }
    }
    metrics_[it->second]["gauge"]["dataPoints"].push_back(
        {{"attributes", attributes_json(attributes)},
         {"timeUnixNano", time_},
         {"asDouble", value}});
  }

  json take() { return std::move(metrics_); }

 private:
  std::vector<OtlpAttribute> base_;
  std::string time_;
  json metrics_ = json::array();
  std::map<std::string, std::size_t> index_;
};

double number_at(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : std::nan("");
}

void add_gauges(const json& summary, Gauges& g) {
  for (const auto& [key, value] : summary.items()) {
    if (value.is_number()) g.add(key, "summary.json's " + key, value.get<double>());
  }
  const json tb = summary.value("tokenbench", json::object());
  const json spec = tb.value("server", json::object()).value("speculative_decoding", json());
  if (spec.is_object()) {
    g.add("spec_decode.acceptance_rate", "accepted / draft tokens over the measure phase",
          number_at(spec, "acceptance_rate"));
    g.add("spec_decode.acceptance_length", "1 + accepted / drafts over the measure phase",
          number_at(spec, "acceptance_length"));
  }
  const json mix = tb.value("mix", json());
  if (!mix.is_object()) return;
  for (const auto& m : mix.value("members", json::array())) {
    const std::vector<OtlpAttribute> member{{"gen_ai.request.model", m.value("name", "")}};
    for (const char* key : {"completed", "failed", "request_throughput", "output_throughput",
                            "median_ttft_ms", "p95_ttft_ms", "p99_ttft_ms", "mean_tpot_ms",
                            "p95_tpot_ms", "median_e2el_ms", "p95_e2el_ms", "p99_e2el_ms"}) {
      g.add(std::string("mix.") + key, std::string("a mix member's ") + key, number_at(m, key),
            member);
    }
  }
}

json resource_json(const json& summary, const OtlpRun& run) {
  std::vector<OtlpAttribute> attributes{{"service.name", "tokenbench"},
                                        {"service.version", std::string(core::kVersion)},
                                        {"tokenbench.run.id", run.run_id}};
  const std::size_t own = attributes.size();
  const json labels = summary.value("tokenbench", json::object())
                          .value("environment", json::object())
                          .value("labels", json::object());
  for (const auto& [name, value] : labels.items()) {
    const auto taken = std::find_if(attributes.begin(), attributes.begin() + own,
                                    [&](const OtlpAttribute& a) { return a.first == name; });
    if (taken != attributes.begin() + own) continue;  // tokenbench's own attributes stay
    attributes.emplace_back(name, value.is_string() ? value.get<std::string>() : value.dump());
  }
  return {{"attributes", attributes_json(attributes)}};
}

}  // namespace

void ExplicitHistogram::add(double value, std::span<const double> bounds) {
  if (!std::isfinite(value)) return;
  if (buckets.empty()) buckets.assign(bounds.size() + 1, 0);
  // The first bound not below the value: bucket i holds (bounds[i-1], bounds[i]].
  const auto at = std::lower_bound(bounds.begin(), bounds.end(), value);
  ++buckets[static_cast<std::size_t>(at - bounds.begin())];
  min = count == 0 ? value : std::min(min, value);
  max = count == 0 ? value : std::max(max, value);
  ++count;
  sum += value;
}

GenAiFigures::GenAiFigures(const core::RunConfig& config) : model_(config.model) {
  std::tie(operation_, provider_) = operation_of(config.api);
  outputs_text_ = !core::scores_inputs(config.api);
  members_ = core::request_mix(config).names;
  const bool replicas = config.replica_urls.size() > 1;
  for (const auto& url : replicas ? config.replica_urls : std::vector{config.base_url}) {
    endpoints_.push_back(address_of(url));
  }
}

void GenAiFigures::add(const core::RequestRecord& r) {
  if (r.phase != core::Phase::kMeasure || r.retried || r.error == core::ErrorClass::kCanceled) {
    return;
  }
  const core::Nanos to = r.done != core::kNever ? r.done : r.last_token;
  if (to != core::kNever && (end_ == core::kNever || to > end_)) end_ = to;
  PointKey key{r.mix, r.endpoint, "", ""};
  if (!r.ok()) {
    key.error_type = std::string(core::to_string(r.error));
    if (r.sent != core::kNever && r.done != core::kNever && r.done >= r.sent) {
      duration_[key].add(core::to_seconds(r.done - r.sent), kOperationDurationBounds);
    }
    return;
  }
  if (const auto v = metrics::e2el_ms(r)) duration_[key].add(*v / 1e3, kOperationDurationBounds);
  if (const auto v = metrics::ttft_ms(r)) ttft_[key].add(*v / 1e3, kTimeToFirstTokenBounds);
  if (const auto v = metrics::tpot_ms(r)) tpot_[key].add(*v / 1e3, kTimePerOutputTokenBounds);
  // Token usage only where it was counted (never a guess), output only for APIs that generate.
  if (r.prompt_source != core::TokenSource::kUnknown) {
    key.token_type = "input";
    tokens_[key].add(static_cast<double>(r.prompt_tokens), kTokenUsageBounds);
  }
  if (outputs_text_ && r.output_source != core::TokenSource::kUnknown) {
    key.token_type = "output";
    tokens_[key].add(static_cast<double>(r.output_tokens), kTokenUsageBounds);
  }
}

std::vector<OtlpAttribute> GenAiFigures::attributes(const PointKey& key) const {
  std::vector<OtlpAttribute> out{{"gen_ai.operation.name", operation_},
                                 {"gen_ai.provider.name", provider_}};
  const bool member = key.mix >= 0 && static_cast<std::size_t>(key.mix) < members_.size();
  const std::string& model = member ? members_[static_cast<std::size_t>(key.mix)] : model_;
  if (!model.empty()) out.emplace_back("gen_ai.request.model", model);
  if (key.endpoint < endpoints_.size() && !endpoints_[key.endpoint].first.empty()) {
    out.emplace_back("server.address", endpoints_[key.endpoint].first);
    out.emplace_back("server.port", endpoints_[key.endpoint].second);
  }
  if (!key.error_type.empty()) out.emplace_back("error.type", key.error_type);
  if (!key.token_type.empty()) out.emplace_back("gen_ai.token.type", key.token_type);
  return out;
}

std::int64_t iso8601_to_unix_ns(const std::string& iso) {
  std::tm tm{};
  char zone = 0;
  if (std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &zone) != 7 ||
      zone != 'Z') {
    return -1;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::time_t t = timegm(&tm);
  return t < 0 ? -1 : static_cast<std::int64_t>(t) * 1'000'000'000;
}

json otlp_metrics_request(const json& summary, const GenAiFigures& genai, const OtlpRun& run) {
  const json tb = summary.value("tokenbench", json::object());
  std::int64_t start = iso8601_to_unix_ns(tb.value("started_at", std::string()));
  if (start < 0) start = run.fallback_unix_ns;
  const std::int64_t end = start + std::max<core::Nanos>(genai.measure_end(), 0);
  const PointTimes times{std::to_string(start), std::to_string(end)};
  json metrics = json::array();
  const auto histogram = [&](const char* name, const char* unit, const char* description,
                             const std::map<PointKey, ExplicitHistogram>& points,
                             std::span<const double> bounds) {
    if (!points.empty()) {
      metrics.push_back(histogram_metric(name, unit, description, points, bounds, genai, times));
    }
  };
  histogram("gen_ai.client.operation.duration", "s", "GenAI operation duration.", genai.duration(),
            kOperationDurationBounds);
  histogram("gen_ai.server.time_to_first_token", "s",
            "Time to generate first token for successful responses.", genai.ttft(),
            kTimeToFirstTokenBounds);
  histogram("gen_ai.server.time_per_output_token", "s",
            "Time per output token generated after the first token for successful responses.",
            genai.tpot(), kTimePerOutputTokenBounds);
  histogram("gen_ai.client.token.usage", "{token}", "Number of input and output tokens used.",
            genai.tokens(), kTokenUsageBounds);
  Gauges gauges(genai.attributes(PointKey{}), times.end);
  add_gauges(summary, gauges);
  for (auto& g : gauges.take()) metrics.push_back(std::move(g));
  const json scope = {{"name", "tokenbench"}, {"version", std::string(core::kVersion)}};
  return {{"resourceMetrics",
           json::array({{{"resource", resource_json(summary, run)},
                         {"scopeMetrics",
                          json::array({{{"scope", scope}, {"metrics", std::move(metrics)}}})}}})}};
}

}  // namespace tokenbench::report
