// OpenTelemetry GenAI traces into job files (trace_import.h, docs/WORKLOADS.md).
//
// Each trace id becomes a job; each span of an LLM call (gen_ai.operation.name "chat",
// "text_completion" or "generate_content", or a span carrying a prompt) a call, in the order the
// calls started. A call waits for
// - the calls whose output its input carries (an assistant message equal to an earlier call's
//   output text, or holding the tool calls an earlier call made): that message becomes a "from"
//   of the call, so a run sends the reply its server actually streamed;
// - the last call that ended before it started (the timeline's order, when the input does not
//   show it);
// less any of these that another already waits for. Its delay is its start less the latest end of
// what it waits for. Tool spans, agent spans and the rest are not calls: their time is in the
// delays.

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/workload/otel_spans.h"
#include "tokenbench/workload/trace_import.h"

namespace tokenbench::workload {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// A span's end may be stamped a little after a later span's start by another process's clock.
constexpr double kClockSlackS = 0.001;

json attribute(const json& attributes, const std::string& key) {
  const auto it = attributes.find(key);
  return it == attributes.end() ? json() : *it;
}

// An attribute that holds JSON as a string (the conventions' messages), parsed; or as it is.
json json_attribute(const json& attributes, const std::string& key) {
  json v = attribute(attributes, key);
  if (v.is_string()) {
    json parsed = core::parse_json_or_discarded(v.get_ref<const std::string&>());
    if (!parsed.is_discarded() && (parsed.is_array() || parsed.is_object())) return parsed;
  }
  return v;
}

std::int64_t count_attribute(const json& attributes, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    const json v = attribute(attributes, key);
    if (v.is_number() && v.get<double>() >= 1) return static_cast<std::int64_t>(v.get<double>());
  }
  return 0;
}

std::string as_text(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.is_null() ? std::string() : v.dump();
}

// The text of a part list's "text" parts, or of an OpenAI content (a string or parts).
std::string text_of(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (!content.is_array()) return text;
  for (const auto& part : content) {
    if (!part.is_object() || part.value("type", std::string("text")) != "text") continue;
    const json t = part.contains("content") ? part["content"] : part.value("text", json());
    if (t.is_string()) text += (text.empty() ? "" : "\n") + t.get<std::string>();
  }
  return text;
}

// One message of the conventions' shape ({"role", "parts": [...]}) as OpenAI chat messages: its
// text, its tool calls, and a tool message per tool result.
void add_parts_message(const json& m, ordered_json& out) {
  const std::string role = m.value("role", std::string("user"));
  ordered_json calls = ordered_json::array();
  for (const auto& part : m["parts"]) {
    if (!part.is_object()) continue;
    const std::string type = part.value("type", std::string());
    if (type == "tool_call") {
      calls.push_back({{"id", as_text(part.value("id", json()))},
                       {"type", "function"},
                       {"function",
                        {{"name", as_text(part.value("name", json()))},
                         {"arguments", as_text(part.value("arguments", json::object()))}}}});
    } else if (type == "tool_call_response") {
      out.push_back({{"role", "tool"},
                     {"tool_call_id", as_text(part.value("id", json()))},
                     {"content", as_text(part.value("response", json()))}});
    }
  }
  const std::string text = text_of(m["parts"]);
  if (role == "tool" || (text.empty() && calls.empty())) return;
  ordered_json message = {{"role", role}, {"content", text.empty() ? json() : json(text)}};
  if (!calls.empty()) message["tool_calls"] = std::move(calls);
  out.push_back(std::move(message));
}

// The prompt of an LLM span as OpenAI chat messages, from whichever convention it follows.
ordered_json input_messages(const json& a) {
  ordered_json out = ordered_json::array();
  if (const json system = json_attribute(a, "gen_ai.system_instructions"); !system.is_null()) {
    const std::string text = system.is_array() ? text_of(system) : as_text(system);
    if (!text.empty()) out.push_back({{"role", "system"}, {"content", text}});
  }
  json messages = json_attribute(a, "gen_ai.input.messages");
  if (messages.is_null()) messages = json_attribute(a, "gen_ai.prompt");
  if (messages.is_string()) messages = json::array({{{"role", "user"}, {"content", messages}}});
  if (messages.is_array()) {
    for (const auto& m : messages) {
      if (!m.is_object()) continue;
      if (m.contains("parts") && m["parts"].is_array()) {
        add_parts_message(m, out);
        continue;
      }
      ordered_json message;
      for (const char* key : {"role", "content", "tool_calls", "tool_call_id", "name"}) {
        if (m.contains(key)) message[key] = m[key];
      }
      if (!message.contains("role")) message["role"] = "user";
      if (!message.contains("content") && !message.contains("tool_calls")) continue;
      out.push_back(std::move(message));
    }
    return out;
  }
  // OpenLLMetry's indexed attributes: gen_ai.prompt.0.role, gen_ai.prompt.0.content, ...
  for (int i = 0;; ++i) {
    const std::string at = "gen_ai.prompt." + std::to_string(i) + ".";
    const json content = attribute(a, at + "content");
    if (content.is_null() && attribute(a, at + "role").is_null()) break;
    const json role = attribute(a, at + "role");
    out.push_back({{"role", role.is_string() ? role.get<std::string>() : "user"},
                   {"content", as_text(content)}});
  }
  return out;
}

struct Output {
  std::string text;
  std::vector<std::string> tool_call_ids;
};

Output output_of(const json& a) {
  Output out;
  const json messages = json_attribute(a, "gen_ai.output.messages");
  if (messages.is_array()) {
    for (const auto& m : messages) {
      if (!m.is_object() || m.value("role", std::string("assistant")) != "assistant") continue;
      if (m.contains("parts") && m["parts"].is_array()) {
        out.text += text_of(m["parts"]);
        for (const auto& p : m["parts"]) {
          if (p.is_object() && p.value("type", std::string()) == "tool_call") {
            out.tool_call_ids.push_back(as_text(p.value("id", json())));
          }
        }
      } else {
        out.text += text_of(m.value("content", json()));
        for (const auto& c : m.value("tool_calls", json::array())) {
          if (c.is_object()) out.tool_call_ids.push_back(as_text(c.value("id", json())));
        }
      }
    }
    return out;
  }
  for (const char* key :
       {"gen_ai.output.text", "gen_ai.completion", "gen_ai.completion.0.content"}) {
    const json v = attribute(a, key);
    if (v.is_string()) {
      out.text = v.get<std::string>();
      break;
    }
  }
  return out;
}

bool is_llm_span(const OtelSpan& s) {
  const json op = attribute(s.attributes, "gen_ai.operation.name");
  if (op.is_string()) {
    return op == "chat" || op == "text_completion" || op == "generate_content";
  }
  for (const char* key : {"gen_ai.input.messages", "gen_ai.prompt", "gen_ai.prompt.0.content"}) {
    if (s.attributes.contains(key)) return true;
  }
  return s.name.rfind("chat ", 0) == 0;
}

struct Call : TracedCall {  // start and end: its span's
  ordered_json messages;
  Output output;
  std::int64_t output_len = 0;
};

struct Counts {
  std::size_t calls = 0;
  std::size_t other_spans = 0;
  std::size_t without_content = 0;
  std::size_t from = 0;
};

// The earliest-started call before `i` that ended by `i`'s start and whose output `message`
// carries; npos when none.
std::size_t source_of(const std::vector<Call>& calls, std::size_t i, const json& message) {
  const std::string text = text_of(message.value("content", json()));
  std::vector<std::string> ids;
  for (const auto& c : message.value("tool_calls", json::array())) {
    if (c.is_object()) ids.push_back(as_text(c.value("id", json())));
  }
  if (text.empty() && ids.empty()) return std::string::npos;
  for (std::size_t j = i; j-- > 0;) {
    if (calls[j].end > calls[i].start + kClockSlackS) continue;
    const Output& o = calls[j].output;
    const bool same_text = !text.empty() && o.text == text;
    const bool same_calls = text.empty() && !ids.empty() &&
                            std::all_of(ids.begin(), ids.end(), [&o](const std::string& id) {
                              return std::find(o.tool_call_ids.begin(), o.tool_call_ids.end(),
                                               id) != o.tool_call_ids.end();
                            });
    if (same_text || same_calls) return j;
  }
  return std::string::npos;
}

// Sets each call's "after": its sources and the last call ended before it, less what another
// already waits for.
void link(std::vector<Call>& calls, Counts& counts) {
  const std::size_t n = calls.size();
  std::vector<std::vector<bool>> before(n, std::vector<bool>(n, false));  // transitive
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::size_t> deps;
    for (auto& m : calls[i].messages) {
      if (m.value("role", std::string()) != "assistant") continue;
      const std::size_t j = source_of(calls, i, m);
      if (j == std::string::npos) continue;
      ordered_json from = {{"role", "assistant"}, {"from", calls[j].id}};
      if (m.contains("tool_calls")) from["tool_calls"] = m["tool_calls"];
      m = std::move(from);
      deps.push_back(j);
      ++counts.from;
    }
    std::size_t last = std::string::npos;
    for (std::size_t j = 0; j < i; ++j) {
      if (calls[j].end <= calls[i].start + kClockSlackS &&
          (last == std::string::npos || calls[j].end > calls[last].end)) {
        last = j;
      }
    }
    if (last != std::string::npos) deps.push_back(last);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    for (const std::size_t d : deps) {
      const bool implied = std::any_of(deps.begin(), deps.end(),
                                       [&](std::size_t other) { return before[other][d]; });
      if (!implied) calls[i].after.push_back(d);
      before[i][d] = true;
      for (std::size_t k = 0; k < n; ++k) {
        if (before[d][k]) before[i][k] = true;
      }
    }
  }
}

ordered_json write_job(const std::string& name, std::vector<Call>& calls, ImportedJobs& out,
                       const ImportOptions& options) {
  const double origin = calls.front().start;
  ordered_json written = ordered_json::array();
  for (const Call& c : calls) {
    ordered_json call;
    const double ready = write_call_head(
        call, c, [&calls](std::size_t i) -> const TracedCall& { return calls[i]; }, origin);
    if (const double delay = out.delay((c.start - ready) * 1000.0, options); delay > 0) {
      call["delay_ms"] = delay;
    }
    call["messages"] = c.messages;
    if (c.output_len > 0) call["output_len"] = c.output_len;
    written.push_back(std::move(call));
  }
  return {{"job", name}, {"calls", std::move(written)}};
}

// One trace's spans as a job; false when it has no LLM call.
bool add_trace(const std::string& name, std::vector<const OtelSpan*>& spans, ImportedJobs& out,
               const ImportOptions& options, Counts& counts) {
  std::stable_sort(spans.begin(), spans.end(),
                   [](const OtelSpan* a, const OtelSpan* b) { return a->start < b->start; });
  std::vector<Call> calls;
  for (const OtelSpan* s : spans) {
    if (!is_llm_span(*s)) {
      ++counts.other_spans;
      continue;
    }
    Call c;
    c.id = "c" + std::to_string(calls.size() + 1);
    c.start = s->start;
    c.end = s->end;
    c.messages = input_messages(s->attributes);
    c.output = output_of(s->attributes);
    c.output_len = count_attribute(
        s->attributes, {"gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"});
    if (c.output_len == 0 && !c.output.text.empty()) {
      c.output_len = core::approx_token_count(c.output.text);
    }
    if (c.messages.empty()) {  // content not recorded (the conventions' default): its length
      const std::int64_t tokens = count_attribute(
          s->attributes, {"gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"});
      c.messages.push_back({{"role", "user"}, {"tokens", std::max<std::int64_t>(1, tokens)}});
      ++counts.without_content;
    }
    calls.push_back(std::move(c));
  }
  if (calls.empty()) return false;
  counts.calls += calls.size();
  link(calls, counts);
  out.add(write_job(name, calls, out, options), options);
  return true;
}

}  // namespace

ImportedJobs import_otel(const std::vector<std::string>& files, const ImportOptions& options) {
  ImportedJobs out;
  Counts counts;
  for (const std::string& file : files) {
    std::vector<OtelSpan> spans;
    std::vector<std::string> order;  // trace ids as they first came
    std::map<std::string, std::vector<const OtelSpan*>> traces;
    try {
      read_trace_documents(file,
                           [&spans](json&& doc, std::size_t) { collect_otel_spans(doc, spans); });
      for (const OtelSpan& s : spans) {
        auto& group = traces[s.trace];
        if (group.empty()) order.push_back(s.trace);
        group.push_back(&s);
      }
      for (const std::string& trace : order) {
        const std::string name = trace.empty() ? file : trace;
        add_trace(name, traces[trace], out, options, counts);
      }
    } catch (const std::runtime_error& e) {
      throw std::runtime_error("trace file " + file + ": " + e.what());
    }
  }
  if (out.jobs == 0) {
    throw std::runtime_error(
        "no LLM call in the traces: spans of LLM calls carry gen_ai.operation.name \"chat\" (or "
        "\"text_completion\", \"generate_content\") or gen_ai.input.messages");
  }
  // What was inferred, a line each where it happened.
  const auto note = [&out](std::size_t n, const char* what) {
    if (n > 0) out.notes.push_back(std::to_string(n) + what);
  };
  note(counts.other_spans,
       " spans that are not LLM calls (tools, agents, ...): their time is in the calls' delays");
  note(counts.from,
       " messages carry an earlier call's output: they become \"from\", the reply a run "
       "actually receives");
  note(counts.without_content,
       " calls recorded no content (gen_ai.input.messages): their prompts are made of their "
       "recorded length (gen_ai.usage.input_tokens)");
  return out;
}

}  // namespace tokenbench::workload
