// Weka KV-cache-tester traces into job files (trace_import.h, docs/WORKLOADS.md).
//
// A trace is one coding session: the main agent's calls ("n" or "s"), in order, each sending the
// blocks of its hash ids (its prompt, as cache blocks: calls sharing a prefix share its ids), and
// "subagent" entries, each a sub-agent's own calls. The job keeps the timeline's causality:
// - each main-agent call waits for the one before;
// - a sub-agent's calls form chains (calls that overlapped in time go on chains side by side),
//   each starting after the main-agent call before the entry;
// - the main agent's next call waits for every sub-agent started since its last one (it reads
//   their results), as the traces' own replayer (kv-cache-tester) and AIPerf run them; a
//   sub-agent after the last main-agent call runs in the background;
// - each call's delay is its recorded think_time (the client's time before it: tools, the
//   human), or, when the trace gives none, its send time less the end (send + api_time) of what
//   it waits for. A main-agent call that waits for sub-agents gets the latter, at least 0: its
//   think_time is the sub-agents' run time, which the run measures instead.

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "tokenbench/workload/fields.h"
#include "tokenbench/workload/trace_import.h"

namespace tokenbench::workload {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// A field of a trace's object: `fallback` when absent or null, else a number or a string as
// asked, or a one-line error naming the trace and the field.
double number_field(const json& o, const char* key, double fallback, const std::string& where) {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) return fallback;
  if (!it->is_number() || it->get<double>() < 0) {
    throw std::runtime_error(where + ": \"" + key + "\" must be a number >= 0");
  }
  return it->get<double>();
}

std::string string_field(const json& o, const char* key, const std::string& fallback) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// start: its `t`, seconds from the trace's start; end: t + api_time.
struct WekaCall : TracedCall {
  double think = -1;   ///< think_time, seconds; -1: none recorded
  bool joins = false;  ///< waits for sub-agents
  std::int64_t in = 0;
  std::int64_t out = 0;
  std::vector<std::uint64_t> hash_ids;
};

class WekaTrace {
 public:
  WekaTrace(const json& doc, std::string name) : doc_(doc), name_(std::move(name)) {}

  ordered_json job(ImportedJobs& out, const ImportOptions& options) {
    if (!doc_.contains("requests") || !doc_["requests"].is_array()) {
      fail("needs \"requests\", an array (is it a Weka trace?)");
    }
    const double block = number_field(doc_, "block_size", 64, "trace " + name_);
    if (block < 1 || block > 65536 || block != std::floor(block)) {
      fail("\"block_size\" must be a whole number from 1 to 65536");
    }
    block_ = static_cast<std::int64_t>(block);
    read_requests();
    if (calls_.empty()) fail("has no calls of type \"n\" or \"s\"");
    return write(out, options);
  }

  std::size_t background() const { return background_; }
  std::size_t subagents() const { return subagents_; }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("trace " + name_ + " " + what);
  }

  WekaCall read_call(const json& r, const std::string& id, double offset) const {
    WekaCall c;
    c.id = id;
    const auto number = [&](const char* key, bool required) {
      if (required && (!r.contains(key) || r[key].is_null())) {
        fail("call " + id + " needs \"" + key + "\"");
      }
      return number_field(r, key, 0, "trace " + name_ + " call " + id);
    };
    c.start = number("t", true) + offset;
    c.end = c.start + number("api_time", false);
    if (r.contains("think_time") && !r["think_time"].is_null())
      c.think = number("think_time", false);
    c.in = static_cast<std::int64_t>(number("in", true));
    c.out = std::max<std::int64_t>(1, static_cast<std::int64_t>(number("out", true)));
    if (c.in < 1) fail("call " + id + ": \"in\" must be at least 1");
    if (const auto ids = r.find("hash_ids"); ids != r.end() && ids->is_array()) {
      auto read = hash_ids_field(*ids);
      if (!read) fail("call " + id + ": \"hash_ids\" must hold whole numbers >= 0");
      c.hash_ids = std::move(*read);
    }
    return c;
  }

  void read_requests() {
    std::size_t last_main = SIZE_MAX;  // the main agent's call before the entry read now
    std::vector<std::size_t> pending;  // the last calls of the sub-agents' chains since then
    for (const json& r : doc_["requests"]) {
      const std::string type = r.is_object() ? string_field(r, "type", "") : std::string();
      if (type == "n" || type == "s") {
        WekaCall c = read_call(r, "main." + std::to_string(++mains_), 0);
        if (last_main != SIZE_MAX) c.after.push_back(last_main);
        c.joins = !pending.empty();
        c.after.insert(c.after.end(), pending.begin(), pending.end());
        joined_ += pending_agents_;
        pending.clear();
        pending_agents_ = 0;
        last_main = calls_.size();
        calls_.push_back(std::move(c));
      } else if (type == "subagent") {
        const std::vector<std::size_t> last = read_subagent(r, last_main);
        pending.insert(pending.end(), last.begin(), last.end());
        ++pending_agents_;
      } else {
        fail("has a request of type \"" + type +
             "\": Weka traces hold \"n\", \"s\" and \"subagent\"");
      }
    }
    background_ = pending_agents_;
  }

  // A sub-agent's calls, as chains of calls that did not overlap; returns the chains' last calls.
  std::vector<std::size_t> read_subagent(const json& r, std::size_t anchor) {
    ++subagents_;
    std::string agent = string_field(r, "agent_id", "agent");
    if (!agents_.insert(agent).second) agent += "#" + std::to_string(subagents_);
    const std::string where = "trace " + name_ + " sub-agent " + agent;
    const double start = number_field(r, "t", 0, where);
    std::vector<std::pair<double, const json*>> inner;
    if (r.contains("requests") && r["requests"].is_array()) {
      for (const json& q : r["requests"]) {
        if (!q.is_object() || !q.contains("t") || !q["t"].is_number()) continue;
        // Inner times are from the agent's start (kv-cache-tester's flatten_requests).
        inner.emplace_back(start + q["t"].get<double>(), &q);
      }
    }
    std::stable_sort(inner.begin(), inner.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::size_t> chain_last;  // per chain, the index of its last call
    std::vector<std::size_t> chain_count;
    for (const auto& [t, q] : inner) {
      std::size_t chain = 0;
      while (chain < chain_last.size() && calls_[chain_last[chain]].end > t) ++chain;
      if (chain == chain_last.size()) {
        chain_last.push_back(SIZE_MAX);
        chain_count.push_back(0);
      }
      const std::string id = agent + (chain == 0 ? "" : ".s" + std::to_string(chain + 1)) + "." +
                             std::to_string(++chain_count[chain]);
      WekaCall c = read_call(*q, id, t - (*q)["t"].get<double>());
      if (chain_last[chain] != SIZE_MAX) {
        c.after.push_back(chain_last[chain]);
      } else if (anchor != SIZE_MAX) {
        c.after.push_back(anchor);
      }
      chain_last[chain] = calls_.size();
      calls_.push_back(std::move(c));
    }
    return chain_last;
  }

  ordered_json write(ImportedJobs& out, const ImportOptions& options) const {
    double origin = calls_.front().start;
    for (const WekaCall& c : calls_) origin = std::min(origin, c.start);
    ordered_json calls = ordered_json::array();
    for (const WekaCall& c : calls_) {
      ordered_json call;
      const double ready = write_call_head(
          call, c, [this](std::size_t i) -> const TracedCall& { return calls_[i]; }, origin);
      const double recorded = c.think >= 0 && !c.joins ? c.think : c.start - ready;
      if (const double delay = out.delay(recorded * 1000.0, options); delay > 0) {
        call["delay_ms"] = delay;
      }
      ordered_json message = {{"role", "user"}};
      message["hash_ids"] = c.hash_ids;
      message["block_tokens"] = block_;
      message["tokens"] = c.in;
      call["messages"] = ordered_json::array({std::move(message)});
      call["output_len"] = c.out;
      calls.push_back(std::move(call));
    }
    ordered_json job = {{"job", name_}, {"calls", std::move(calls)}};
    // "global" ids name the same content in every trace; "local" ones (the default) are the
    // trace's own.
    if (string_field(doc_, "hash_id_scope", "local") == "global") job["hash_scope"] = "run";
    return job;
  }

  const json& doc_;
  std::string name_;
  std::int64_t block_ = 64;
  std::vector<WekaCall> calls_;
  std::set<std::string> agents_;
  std::size_t mains_ = 0;
  std::size_t subagents_ = 0;
  std::size_t background_ = 0;
  std::size_t joined_ = 0;
  std::size_t pending_agents_ = 0;
};

}  // namespace

ImportedJobs import_weka(const std::vector<std::string>& files, const ImportOptions& options) {
  ImportedJobs out;
  std::size_t subagents = 0;
  std::size_t background = 0;
  for (const std::string& file : files) {
    read_trace_documents(file, [&](json&& doc, std::size_t line) {
      const std::string at =
          "trace file " + file + (line > 0 ? " line " + std::to_string(line) : "");
      if (!doc.is_object()) throw std::runtime_error(at + ": a Weka trace is a JSON object");
      const std::string name = doc.contains("id") && doc["id"].is_string()
                                   ? doc["id"].get<std::string>()
                                   : file + (line > 0 ? "#" + std::to_string(line) : "");
      try {
        WekaTrace trace(doc, name);
        out.add(trace.job(out, options), options);
        subagents += trace.subagents();
        background += trace.background();
      } catch (const std::runtime_error& e) {
        throw std::runtime_error(at + ": " + e.what());
      }
    });
  }
  if (subagents > 0) {
    out.notes.push_back(std::to_string(subagents) +
                        " sub-agents: " + std::to_string(subagents - background) +
                        " joined by the main agent's next call, " + std::to_string(background) +
                        " after its last call (in the background)");
  }
  out.notes.push_back(
      "prompts are cache blocks (\"hash_ids\"): a run makes their text from --seed, the same "
      "ids the same text, so the server's prefix cache sees the trace's sharing");
  return out;
}

}  // namespace tokenbench::workload
