#include "tokenbench/workload/otel_spans.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace tokenbench::workload {
namespace {

using nlohmann::json;

// OTLP's typed value ({"stringValue": ...}, {"intValue": "42"}, arrays, key-value lists) as
// plain JSON; a plain value as it is.
json any_value(const json& v) {
  if (!v.is_object()) return v;
  if (const auto s = v.find("stringValue"); s != v.end()) return *s;
  if (const auto b = v.find("boolValue"); b != v.end()) return *b;
  if (const auto d = v.find("doubleValue"); d != v.end()) return *d;
  if (const auto i = v.find("intValue"); i != v.end()) {
    if (i->is_string()) {
      char* end = nullptr;
      const long long n = std::strtoll(i->get_ref<const std::string&>().c_str(), &end, 10);
      return end != nullptr && *end == '\0' ? json(n) : *i;
    }
    return *i;
  }
  if (const auto a = v.find("arrayValue"); a != v.end()) {
    json out = json::array();
    if (a->is_object() && a->contains("values") && (*a)["values"].is_array()) {
      for (const auto& e : (*a)["values"]) out.push_back(any_value(e));
    }
    return out;
  }
  if (const auto kv = v.find("kvlistValue"); kv != v.end()) {
    json out = json::object();
    if (kv->is_object() && kv->contains("values") && (*kv)["values"].is_array()) {
      for (const auto& e : (*kv)["values"]) {
        if (e.is_object() && e.contains("key") && e["key"].is_string()) {
          out[e["key"].get<std::string>()] = any_value(e.value("value", json()));
        }
      }
    }
    return out;
  }
  return v;
}

json attributes_of(const json& a) {
  if (a.is_object()) return a;
  json out = json::object();
  if (!a.is_array()) return out;
  for (const auto& e : a) {
    if (e.is_object() && e.contains("key") && e["key"].is_string()) {
      out[e["key"].get<std::string>()] = any_value(e.contains("value") ? e["value"] : json());
    }
  }
  return out;
}

// Seconds since the epoch of a time: Unix time as a number (its unit told by its size) or a
// string of digits (OTLP's nanoseconds), or ISO 8601.
double time_of(const json& v) {
  if (v.is_number()) {
    const double n = v.get<double>();
    if (n > 1e17) return n / 1e9;
    if (n > 1e14) return n / 1e6;
    if (n > 1e11) return n / 1e3;
    return n;
  }
  if (!v.is_string()) return NAN;
  const std::string& s = v.get_ref<const std::string&>();
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) {
    return time_of(json(std::strtod(s.c_str(), nullptr)));
  }
  return iso8601_seconds(s);
}

std::string id_field(const json& span, const char* camel, const char* snake) {
  for (const char* key : {camel, snake}) {
    if (const auto it = span.find(key); it != span.end() && it->is_string()) return *it;
  }
  if (const auto c = span.find("context"); c != span.end() && c->is_object()) {
    if (const auto it = c->find(snake); it != c->end() && it->is_string()) return *it;
  }
  return "";
}

json first_of(const json& o, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (const auto it = o.find(key); it != o.end() && !it->is_null()) return *it;
  }
  return json();
}

void add_span(const json& s, const std::string& default_trace, std::vector<OtelSpan>& spans) {
  if (!s.is_object()) return;
  OtelSpan span;
  span.trace = id_field(s, "traceId", "trace_id");
  if (span.trace.empty()) span.trace = default_trace;
  span.id = id_field(s, "spanId", "span_id");
  span.name = s.contains("name") && s["name"].is_string() ? s["name"].get<std::string>() : "";
  span.start = time_of(first_of(s, {"startTimeUnixNano", "start_time", "startTime"}));
  span.end = time_of(first_of(s, {"endTimeUnixNano", "end_time", "endTime"}));
  if (std::isnan(span.start) || std::isnan(span.end)) {
    throw std::runtime_error("span " + (span.id.empty() ? span.name : span.id) +
                             " has no readable start or end time (startTimeUnixNano / "
                             "start_time, endTimeUnixNano / end_time)");
  }
  span.attributes = attributes_of(first_of(s, {"attributes"}));
  spans.push_back(std::move(span));
}

}  // namespace

void collect_otel_spans(const json& document, std::vector<OtelSpan>& spans) {
  if (document.is_array()) {
    for (const auto& e : document) collect_otel_spans(e, spans);
    return;
  }
  if (!document.is_object()) return;
  const json resource = first_of(document, {"resourceSpans", "resource_spans"});
  if (resource.is_array()) {
    for (const auto& rs : resource) {
      if (!rs.is_object()) continue;
      const json scopes =
          first_of(rs, {"scopeSpans", "scope_spans", "instrumentationLibrarySpans"});
      if (!scopes.is_array()) continue;
      for (const auto& ss : scopes) {
        if (ss.is_object() && ss.contains("spans") && ss["spans"].is_array()) {
          for (const auto& s : ss["spans"]) add_span(s, "", spans);
        }
      }
    }
    return;
  }
  if (document.contains("spans") && document["spans"].is_array()) {
    const std::string trace = id_field(document, "traceId", "trace_id");
    for (const auto& s : document["spans"]) add_span(s, trace, spans);
    return;
  }
  add_span(document, "", spans);
}

double iso8601_seconds(const std::string& text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0;
  double sec = 0;
  int used = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%*1[T ]%2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &sec,
                  &used) != 6 ||
      mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec < 0 || sec >= 61) {
    return NAN;
  }
  double zone = 0;
  const std::string rest = text.substr(static_cast<std::size_t>(used));
  if (!rest.empty() && rest != "Z" && rest != "z") {
    int zh = 0, zm = 0;
    if ((rest[0] != '+' && rest[0] != '-') ||
        std::sscanf(rest.c_str() + 1, "%2d:%2d", &zh, &zm) != 2) {
      return NAN;
    }
    zone = (rest[0] == '-' ? -1 : 1) * (zh * 3600.0 + zm * 60.0);
  }
  // Days from 1970-01-01 of a civil date (Howard Hinnant's algorithm).
  const int yy = y - (mo <= 2 ? 1 : 0);
  const int era = (yy >= 0 ? yy : yy - 399) / 400;
  const int yoe = yy - era * 400;
  const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const double days = era * 146097.0 + doe - 719468.0;
  return days * 86400.0 + h * 3600.0 + mi * 60.0 + sec - zone;
}

}  // namespace tokenbench::workload
