#include "tokenbench/workload/synthetic_jobs.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "tokenbench/workload/prompt_synth.h"

namespace tokenbench::workload {
namespace {

using nlohmann::json;

constexpr std::string_view kKeys =
    "fanout, depth, tools, prefix, share (job or run), input, output, tool_tokens, tool_ms";

[[noreturn]] void bad(std::string_view item, const std::string& why) {
  throw std::invalid_argument("--jobs: '" + std::string(item) + "' " + why + " (keys: " +
                              std::string(kKeys) + "; e.g. fanout:3,depth:1,tools:2,prefix:512)");
}

std::int64_t count_of(std::string_view item, std::string_view value, std::int64_t lo,
                      std::int64_t hi) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || v < lo ||
      v > hi) {
    bad(item, "needs a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
  }
  return v;
}

json text_message(const std::string& role, const std::string& text) {
  return json{{"role", role}, {"content", text}};
}

json synthetic_message(const std::string& role, std::int64_t tokens) {
  return json{{"role", role}, {"tokens", tokens}};
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A YAML shape file (`fanout: 4` a line) as the spec it stands for ("fanout:4,...").
std::string spec_of_yaml(const std::string& path) {
  YAML::Node node;
  try {
    node = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw std::invalid_argument("--jobs: cannot open " + path +
                                " (a YAML file of KEY: VALUE lines, or a spec KEY:VALUE,...)");
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument("--jobs: " + path + " line " + std::to_string(e.mark.line + 1) +
                                ": not YAML (" + e.msg + ")");
  }
  if (!node.IsMap()) {
    throw std::invalid_argument(
        "--jobs: " + path + " is not a mapping of KEY: VALUE (keys: " + std::string(kKeys) + ")");
  }
  std::string spec;
  for (const auto& item : node) {
    if (!item.first.IsScalar() || !item.second.IsScalar()) {
      throw std::invalid_argument(
          "--jobs: " + path + " line " + std::to_string(item.first.Mark().line + 1) +
          ": each value is a number or a word (keys: " + std::string(kKeys) + ")");
    }
    spec += (spec.empty() ? "" : ",") + item.first.Scalar() + ":" + item.second.Scalar();
  }
  return spec;
}

}  // namespace

JobShape parse_job_shape(const std::string& spec_or_file) {
  const std::string spec = ends_with(spec_or_file, ".yaml") || ends_with(spec_or_file, ".yml")
                               ? spec_of_yaml(spec_or_file)
                               : spec_or_file;
  JobShape s;
  std::string_view rest = spec;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const auto colon = item.find(':');
    if (colon == std::string_view::npos) bad(item, "is not KEY:VALUE");
    const std::string_view key = item.substr(0, colon);
    const std::string_view value = item.substr(colon + 1);
    if (key == "fanout") {
      s.fanout = count_of(item, value, 1, 256);
    } else if (key == "depth") {
      s.depth = count_of(item, value, 0, 16);
    } else if (key == "tools") {
      s.tools = count_of(item, value, 0, 64);
    } else if (key == "prefix") {
      s.prefix = count_of(item, value, 0, 1 << 20);
    } else if (key == "share") {
      if (value != "job" && value != "run") bad(item, "is job or run");
      s.shared = value == "run";
    } else if (key == "input") {
      s.input = count_of(item, value, 1, 1 << 20);
    } else if (key == "output") {
      s.output = count_of(item, value, 1, 1 << 20);
    } else if (key == "tool_tokens") {
      s.tool_tokens = count_of(item, value, 1, 1 << 20);
    } else if (key == "tool_ms") {
      s.tool_ms = static_cast<double>(count_of(item, value, 0, 86'400'000));
    } else {
      bad(item, "has an unknown key");
    }
  }
  if (calls_per_job(s) > static_cast<std::int64_t>(kMaxJobCalls)) {
    throw std::invalid_argument("--jobs: " + std::to_string(calls_per_job(s)) +
                                " calls a job, more than the limit of " +
                                std::to_string(kMaxJobCalls) + ": fewer fanout, depth or tools");
  }
  return s;
}

std::int64_t calls_per_job(const JobShape& s) { return 2 + s.depth * s.fanout * (1 + s.tools); }

Job make_synthetic_job(const JobShape& shape, std::uint64_t seed, std::size_t index,
                       std::int64_t output_len, const tokenizer::Tokenizer* tokenizer) {
  // The system prompt: the same for every call of a job (and of every job with share:run).
  const std::uint64_t job_seed = seed * 0x9E3779B97F4A7C15ULL + index + 1;
  std::string system_text;
  if (shape.prefix > 0) {
    PromptSynth synth(shape.shared ? seed ^ 0x5157E3ULL : job_seed, tokenizer);
    system_text = synth.make(shape.prefix).text;
  }
  const std::int64_t out = shape.output > 0 ? shape.output : output_len;
  const auto call = [&](const std::string& id, const std::vector<std::string>& after,
                        double delay_ms, json messages) {
    json c{{"id", id}, {"messages", std::move(messages)}};
    if (!after.empty()) c["after"] = after;
    if (delay_ms > 0) c["delay_ms"] = delay_ms;
    if (out > 0) c["output_len"] = out;
    return c;
  };
  const auto opening = [&]() {
    json m = json::array();
    if (!system_text.empty()) m.push_back(text_message("system", system_text));
    return m;
  };
  json calls = json::array();
  json plan = opening();
  plan.push_back(synthetic_message("user", shape.input));
  calls.push_back(call("plan", {}, 0, std::move(plan)));
  std::vector<std::string> last{"plan"};  // the last call of each agent of the level before
  for (std::int64_t d = 1; d <= shape.depth; ++d) {
    std::vector<std::string> level;
    for (std::int64_t w = 0; w < shape.fanout; ++w) {
      const std::string agent = "a" + std::to_string(d) + "." + std::to_string(w + 1);
      const std::string& source = last[static_cast<std::size_t>(w) % last.size()];
      json history = opening();
      history.push_back({{"role", "assistant"}, {"from", source}});
      history.push_back(synthetic_message("user", shape.input));
      std::string previous = agent;
      calls.push_back(call(agent, last, 0, history));
      // Each tool call: the agent's reply (its call of the tool) and the tool's result, after
      // the tool's run time.
      for (std::int64_t t = 1; t <= shape.tools; ++t) {
        const std::string tool_id = "call_" + std::to_string(t);
        history.push_back(
            {{"role", "assistant"},
             {"from", previous},
             {"tool_calls",
              {{{"id", tool_id},
                {"type", "function"},
                {"function",
                 {{"name", "tool"}, {"arguments", "{\"step\":" + std::to_string(t) + "}"}}}}}}});
        history.push_back(
            {{"role", "tool"}, {"tool_call_id", tool_id}, {"tokens", shape.tool_tokens}});
        const std::string id = agent + ".t" + std::to_string(t);
        calls.push_back(call(id, {previous}, shape.tool_ms, history));
        previous = id;
      }
      level.push_back(previous);
    }
    last = std::move(level);
  }
  json join = opening();
  for (const std::string& id : last) join.push_back({{"role", "assistant"}, {"from", id}});
  join.push_back(synthetic_message("user", shape.input));
  calls.push_back(call("final", last, 0, std::move(join)));
  const json job{{"job", "synthetic-" + std::to_string(index)}, {"calls", std::move(calls)}};
  return parse_job(job.dump(), output_len, job_seed, tokenizer);
}

}  // namespace tokenbench::workload
