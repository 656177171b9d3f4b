#include "tokenbench/workload/jobs.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tokenbench/core/ideal_cache.h"
#include "tokenbench/core/input_limits.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/workload/dataset.h"
#include "tokenbench/workload/fields.h"
#include "tokenbench/workload/prompt_synth.h"

namespace tokenbench::workload {
namespace {

using nlohmann::json;

// Builds one job's calls from its JSON, naming the job and call in every error.
class JobParser {
 public:
  // `base` is seeded by the run's seed; `seed` makes this job's synthetic messages.
  JobParser(std::int64_t default_output_len, const PromptSynth& base, std::uint64_t seed,
            const tokenizer::Tokenizer* tokenizer)
      : default_output_len_(default_output_len),
        base_(base),
        synth_(base.reseeded(seed)),
        tokenizer_(tokenizer) {}

  Job parse(const json& j) {
    if (!j.is_object())
      throw std::runtime_error("not a JSON object: a job is {\"job\", \"calls\"}");
    const auto name = j.find("job");
    if (name == j.end() || !(name->is_string() || name->is_number_integer())) {
      throw std::runtime_error("needs \"job\": the job's name, a string or integer");
    }
    job_.name = name->is_string() ? name->get<std::string>() : name->dump();
    if (const auto scope = j.find("hash_scope"); scope != j.end()) {
      if (*scope != "job" && *scope != "run") {
        fail_job("has \"hash_scope\" " + scope->dump() + ": it is \"job\" or \"run\"");
      }
      job_.run_scope = *scope == "run";
    }
    const auto calls = j.find("calls");
    if (calls == j.end() || !calls->is_array() || calls->empty()) {
      fail_job("needs \"calls\": a non-empty array of calls");
    }
    if (calls->size() > kMaxJobCalls) {
      fail_job("has " + std::to_string(calls->size()) + " calls, more than the limit of " +
               std::to_string(kMaxJobCalls));
    }
    // Ids first, so that "after" and "from" may name a call written later in the line.
    for (const auto& c : *calls) {
      JobCall call;
      if (!c.is_object() || !c.contains("id") || !c["id"].is_string() ||
          c["id"].get_ref<const std::string&>().empty()) {
        fail_job("every call needs \"id\", a non-empty string");
      }
      call.id = c["id"].get<std::string>();
      if (!index_.emplace(call.id, static_cast<std::uint32_t>(job_.calls.size())).second) {
        fail_job("has two calls with id \"" + call.id + "\"");
      }
      job_.calls.push_back(std::move(call));
    }
    for (std::size_t i = 0; i < calls->size(); ++i) read_call((*calls)[i], job_.calls[i]);
    order_calls();
    check_from();
    return std::move(job_);
  }

 private:
  [[noreturn]] void fail_job(const std::string& what) const {
    throw std::runtime_error("job " + (job_.name.empty() ? std::string("?") : job_.name) + " " +
                             what);
  }
  [[noreturn]] static void fail_call(const Job& job, const JobCall& call, const std::string& what) {
    throw std::runtime_error("job " + job.name + ", call " + call.id + ": " + what);
  }

  std::uint32_t find(const JobCall& call, const json& id, const char* field) const {
    if (!id.is_string()) fail_call(job_, call, std::string("\"") + field + "\" takes call ids");
    const auto it = index_.find(id.get<std::string>());
    if (it == index_.end()) {
      fail_call(job_, call,
                std::string("\"") + field + "\" names \"" + id.get<std::string>() +
                    "\", which is not a call of this job");
    }
    return it->second;
  }

  void read_call(const json& c, JobCall& call) {
    if (const auto after = c.find("after"); after != c.end()) {
      if (!after->is_array()) fail_call(job_, call, "\"after\" must be an array of call ids");
      for (const auto& id : *after) {
        const std::uint32_t dep = find(call, id, "after");
        if (std::find(call.after.begin(), call.after.end(), dep) == call.after.end()) {
          call.after.push_back(dep);
        }
      }
    }
    if (const auto delay = c.find("delay_ms"); delay != c.end()) {
      if (!delay->is_number() || delay->get<double>() < 0 || delay->get<double>() > 86.4e6) {
        fail_call(job_, call, "\"delay_ms\" must be a number of milliseconds from 0 to 86400000");
      }
      call.delay_ms = delay->get<double>();
    }
    call.max_tokens = default_output_len_;
    for (const char* key : {"output_len", "max_tokens"}) {
      if (const auto n = c.find(key); n != c.end()) {
        if (!n->is_number_integer() || n->get<std::int64_t>() < 1) {
          fail_call(job_, call, std::string("\"") + key + "\" must be a positive integer");
        }
        call.max_tokens = n->get<std::int64_t>();
      }
    }
    const auto messages = c.find("messages");
    if (messages == c.end() || !messages->is_array() || messages->empty()) {
      fail_call(job_, call, "needs \"messages\": a non-empty array");
    }
    std::string text;
    for (std::size_t m = 0; m < messages->size(); ++m) {
      call.messages.push_back(read_message((*messages)[m], call, m, text));
    }
    core::RequestSpec counted;
    count_input(counted, text, tokenizer_);
    call.input_tokens += counted.input_tokens;
    call.input_source = counted.input_source;
  }

  // One message; its written text is appended to `text` (for the prompt's count), a synthetic
  // one's tokens added to the call's count.
  JobMessage read_message(const json& m, JobCall& call, std::size_t n, std::string& text) {
    const std::string where = "message " + std::to_string(n + 1) + " ";
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string()) {
      fail_call(job_, call, where + "needs \"role\", a string");
    }
    const std::string role = m["role"].get<std::string>();
    JobMessage out;
    if (const auto from = m.find("from"); from != m.end()) {
      if (role != "assistant") fail_call(job_, call, where + "has \"from\" but is not assistant's");
      out.from = static_cast<std::int32_t>(find(call, *from, "from"));
      if (m.contains("tool_calls")) {  // the reply was a call of a tool: kept beside its text
        if (!m["tool_calls"].is_array())
          fail_call(job_, call, where + "\"tool_calls\" must be an array");
        json kept = m;
        kept.erase("from");
        kept.erase("content");
        out.json = kept.dump(-1, ' ', false, json::error_handler_t::replace);
      }
      return out;
    }
    json message = m;
    if (role == "tool" && !(m.contains("tool_call_id") && m["tool_call_id"].is_string())) {
      fail_call(job_, call, where + "is a tool result without \"tool_call_id\"");
    }
    if (const auto ids = m.find("hash_ids"); ids != m.end()) {
      out.blocks = read_blocks(m, call, where);
      if (!job_.blocks) {  // made for the jobs that have block messages only
        job_.blocks = std::make_shared<const PromptSynth>(
            base_.reseeded(job_.run_scope ? base_.seed() : base_.seed() ^ core::fnv1a(job_.name)));
      }
      call.input_tokens += out.blocks->tokens;
      for (const char* key : {"hash_ids", "block_tokens", "tokens", "content"}) message.erase(key);
      out.json = message.dump(-1, ' ', false, json::error_handler_t::replace);
      return out;
    }
    if (const auto tokens = m.find("tokens"); tokens != m.end()) {
      const SynthPrompt made = synth_.make(read_tokens(*tokens, call, where));
      message.erase("tokens");
      message["content"] = made.text;
      call.input_tokens += made.tokens;
    } else if (m.contains("content") && m["content"].is_string()) {
      text += (text.empty() ? "" : " ") + m["content"].get<std::string>();
    } else if (!(role == "assistant" && m.contains("tool_calls")) &&
               !(m.contains("content") && m["content"].is_array())) {
      fail_call(job_, call, where + "needs \"content\", \"tokens\" or \"from\"");
    }
    if (role == "assistant" && m.contains("tool_calls") && !m["tool_calls"].is_array()) {
      fail_call(job_, call, where + "\"tool_calls\" must be an array");
    }
    out.json = message.dump(-1, ' ', false, json::error_handler_t::replace);
    return out;
  }

  std::int64_t read_tokens(const json& tokens, const JobCall& call,
                           const std::string& where) const {
    if (!tokens.is_number_integer() || tokens.get<std::int64_t>() < 1 ||
        tokens.get<std::int64_t>() > kMaxSyntheticMessageTokens) {
      fail_call(job_, call,
                where + "\"tokens\" must be an integer from 1 to " +
                    std::to_string(kMaxSyntheticMessageTokens));
    }
    return tokens.get<std::int64_t>();
  }

  // "hash_ids" (whole numbers), "tokens" (the content's length) and "block_tokens" (16 unless
  // given). Ids past the last block the length holds are left out.
  std::shared_ptr<const JobBlocks> read_blocks(const json& m, const JobCall& call,
                                               const std::string& where) const {
    auto blocks = std::make_shared<JobBlocks>();
    if (!m.contains("tokens")) {
      fail_call(job_, call, where + "has \"hash_ids\" but no \"tokens\": the content's length");
    }
    blocks->tokens = read_tokens(m["tokens"], call, where);
    if (const auto n = m.find("block_tokens"); n != m.end()) {
      if (!n->is_number_integer() || n->get<std::int64_t>() < 1 || n->get<std::int64_t>() > 65536) {
        fail_call(job_, call, where + "\"block_tokens\" must be an integer from 1 to 65536");
      }
      blocks->block_tokens = n->get<std::int64_t>();
    }
    const json& ids = m["hash_ids"];
    if (!ids.is_array()) fail_call(job_, call, where + "\"hash_ids\" must be an array");
    auto read = hash_ids_field(ids);
    if (!read) fail_call(job_, call, where + "\"hash_ids\" must hold whole numbers >= 0");
    blocks->hash_ids = std::move(*read);
    const auto needed = static_cast<std::size_t>((blocks->tokens + blocks->block_tokens - 1) /
                                                 blocks->block_tokens);
    if (blocks->hash_ids.size() > needed) blocks->hash_ids.resize(needed);
    return blocks;
  }

  // Kahn's order: a call comes once every call it waits for has; what is left is on a cycle.
  void order_calls() {
    const std::size_t n = job_.calls.size();
    std::vector<std::size_t> waiting(n);
    std::vector<std::vector<std::uint32_t>> next(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      waiting[i] = job_.calls[i].after.size();
      for (const std::uint32_t dep : job_.calls[i].after) next[dep].push_back(i);
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      if (waiting[i] == 0) job_.order.push_back(i);
    }
    for (std::size_t k = 0; k < job_.order.size(); ++k) {
      const std::uint32_t done = job_.order[k];
      for (const std::uint32_t i : next[done]) {
        job_.calls[i].depth = std::max(job_.calls[i].depth, job_.calls[done].depth + 1);
        if (--waiting[i] == 0) job_.order.push_back(i);
      }
    }
    if (job_.order.size() == n) return;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (waiting[i] > 0) {
        fail_call(job_, job_.calls[i], "is on a cycle of \"after\": a call cannot wait for itself");
      }
    }
  }

  // A reply put in by "from" must have ended before the call is sent: the call must wait for it.
  void check_from() const {
    const std::size_t n = job_.calls.size();
    for (const std::uint32_t i : job_.order) {
      const JobCall& call = job_.calls[i];
      std::vector<bool> before(n, false);
      std::vector<std::uint32_t> stack(call.after.begin(), call.after.end());
      while (!stack.empty()) {
        const std::uint32_t d = stack.back();
        stack.pop_back();
        if (before[d]) continue;
        before[d] = true;
        stack.insert(stack.end(), job_.calls[d].after.begin(), job_.calls[d].after.end());
      }
      for (const JobMessage& m : call.messages) {
        if (m.from >= 0 && !before[static_cast<std::size_t>(m.from)]) {
          fail_call(job_, call,
                    "takes the reply of \"" + job_.calls[static_cast<std::size_t>(m.from)].id +
                        "\" (\"from\") but does not wait for it: add it to \"after\"");
        }
      }
    }
  }

  std::int64_t default_output_len_;
  const PromptSynth& base_;
  PromptSynth synth_;
  const tokenizer::Tokenizer* tokenizer_;
  Job job_;
  std::map<std::string, std::uint32_t> index_;
};

Job parse_with(const std::string& line, std::int64_t default_output_len, const PromptSynth& base,
               std::uint64_t seed, const tokenizer::Tokenizer* tokenizer) {
  std::string why;
  const auto j = core::parse_json_or_discarded(line, &why);
  if (j.is_discarded()) {
    throw std::runtime_error(why.empty() ? "not JSON: a job is {\"job\", \"calls\"}" : why);
  }
  return JobParser(default_output_len, base, seed, tokenizer).parse(j);
}

}  // namespace

Job parse_job(const std::string& line, std::int64_t default_output_len, std::uint64_t seed,
              const tokenizer::Tokenizer* tokenizer) {
  return parse_with(line, default_output_len, PromptSynth(seed, tokenizer), seed, tokenizer);
}

std::string message_json(const Job& job, const JobMessage& m) {
  if (m.blocks == nullptr) return m.json;
  if (job.blocks == nullptr) throw std::logic_error("a job's block message without its synth");
  json message = core::parse_json(m.json);
  message["content"] =
      job.blocks->blocks_prompt(m.blocks->hash_ids, m.blocks->block_tokens, m.blocks->tokens).text;
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::vector<Job> load_job_file(const std::string& path, std::int64_t default_output_len,
                               std::uint64_t seed, const tokenizer::Tokenizer* tokenizer) {
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("cannot open job file " + path +
                             ": check --dataset-path (JSON Lines, one job a line)");
  }
  core::LineReader reader(in, "job file " + path);
  const PromptSynth base(seed, tokenizer);  // the tokenizer's allowed ids found once
  std::vector<Job> jobs;
  std::map<std::string, std::size_t> names;
  std::string line;
  while (reader.next(line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string at = "job file " + path + " line " + std::to_string(reader.number()) + ": ";
    try {
      // Each job's synthetic messages from a seed of its own: editing one job leaves the others'.
      jobs.push_back(parse_with(line, default_output_len, base, seed + reader.number(), tokenizer));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(at + e.what());
    }
    if (const auto [it, fresh] = names.emplace(jobs.back().name, reader.number()); !fresh) {
      throw std::runtime_error(at + "job " + jobs.back().name + " is also on line " +
                               std::to_string(it->second) + ": job names must be unique");
    }
  }
  if (jobs.empty()) {
    throw std::runtime_error("job file " + path + " holds no job: write one JSON object a line");
  }
  return jobs;
}

std::string job_to_json_line(const Job& job) {
  json calls = json::array();
  for (const JobCall& call : job.calls) {
    json c = {{"id", call.id}};
    if (!call.after.empty()) {
      json after = json::array();
      for (const std::uint32_t d : call.after) after.push_back(job.calls[d].id);
      c["after"] = std::move(after);
    }
    if (call.delay_ms > 0) c["delay_ms"] = call.delay_ms;
    json messages = json::array();
    for (const JobMessage& m : call.messages) {
      if (m.from >= 0) {
        json message = m.json.empty() ? json{{"role", "assistant"}} : core::parse_json(m.json);
        message["from"] = job.calls[static_cast<std::size_t>(m.from)].id;
        messages.push_back(std::move(message));
      } else if (m.blocks != nullptr) {
        json message = core::parse_json(m.json);
        message["hash_ids"] = m.blocks->hash_ids;
        message["block_tokens"] = m.blocks->block_tokens;
        message["tokens"] = m.blocks->tokens;
        messages.push_back(std::move(message));
      } else {
        messages.push_back(core::parse_json(m.json));
      }
    }
    c["messages"] = std::move(messages);
    if (call.max_tokens > 0) c["output_len"] = call.max_tokens;
    calls.push_back(std::move(c));
  }
  json line = {{"job", job.name}, {"calls", std::move(calls)}};
  if (job.run_scope) line["hash_scope"] = "run";
  return line.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace tokenbench::workload
