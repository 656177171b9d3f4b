// The datasets whose prompts are text in a file: lines, csv, ShareGPT and sonnet, and the fixed
// prompt.

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/core/input_limits.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/workload/csv_reader.h"
#include "tokenbench/workload/dataset.h"
#include "tokenbench/workload/fields.h"
#include "tokenbench/workload/file_lines.h"

namespace tokenbench::workload {
namespace {

std::int64_t count_text(const std::string& text, const tokenizer::Tokenizer* tokenizer) {
  return tokenizer != nullptr ? static_cast<std::int64_t>(tokenizer->count(text))
                              : core::approx_token_count(text);
}

}  // namespace

void count_input(core::RequestSpec& spec, const std::string& text,
                 const tokenizer::Tokenizer* tokenizer) {
  spec.input_tokens = count_text(text, tokenizer);
  spec.input_source =
      tokenizer != nullptr ? core::TokenSource::kTokenizer : core::TokenSource::kApproximate;
}

namespace {

FileLines open_lines(const DatasetOptions& o) {
  if (!std::ifstream(o.path)) {
    throw std::runtime_error("cannot open dataset file " + o.path + ": check --dataset-path");
  }
  return FileLines(o.path, "dataset " + o.path);
}

// The request of one line of a `lines` dataset (its id left to the caller).
core::RequestSpec lines_spec(std::string line, const DatasetOptions& o) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  core::RequestSpec spec;
  spec.max_tokens = o.output_len;
  count_input(spec, line, o.tokenizer);
  spec.prompt = std::move(line);
  return spec;
}

}  // namespace

std::vector<core::RequestSpec> load_lines_dataset(const DatasetOptions& o) {
  FileLines lines = open_lines(o);
  std::vector<core::RequestSpec> specs;
  std::string line;
  std::size_t number = 0;
  while (lines.next(line, number)) {
    specs.push_back(lines_spec(line, o));
    specs.back().id = specs.size() - 1;
  }
  if (specs.empty()) throw std::runtime_error("dataset " + o.path + " has no prompts");
  return specs;
}

std::size_t check_lines_dataset(const DatasetOptions& o) {
  FileLines lines = open_lines(o);
  std::string line;
  std::size_t number = 0;
  std::size_t count = 0;
  while (lines.next(line, number)) ++count;
  if (count == 0) throw std::runtime_error("dataset " + o.path + " has no prompts");
  return count;
}

PromptGenerator lines_generator(const DatasetOptions& o) {
  return [lines = open_lines(o), o, id = std::uint64_t{0}]() mutable {
    std::string line;
    std::size_t number = 0;
    if (!lines.next(line, number)) lines.ended_early();
    core::RequestSpec spec = lines_spec(std::move(line), o);
    spec.id = id++;
    return spec;
  };
}

std::vector<core::RequestSpec> load_csv_dataset(const DatasetOptions& o) {
  const CsvFile csv = read_csv(o.path);
  const std::size_t prompt = csv.column(o.path, o.prompt_field, "--prompt-field");
  const auto optional_column = [&](const std::string& name, const char* flag) {
    return name.empty() ? csv.header.size() : csv.column(o.path, name, flag);
  };
  const std::size_t out_len = optional_column(o.output_len_field, "--output-len-field");
  const std::size_t stamp = optional_column(o.timestamp_field, "--timestamp-field");
  const std::size_t session = optional_column(o.session_field, "--session-field");
  std::vector<core::RequestSpec> specs;
  double first = NAN;
  for (const auto& r : csv.records) {
    core::RequestSpec spec;
    spec.id = specs.size();
    spec.prompt = r.fields[prompt];
    if (spec.prompt.empty())
      fail_at(o.path, r.line, "the prompt ('" + o.prompt_field + "') is empty");
    spec.max_tokens = o.output_len;
    if (out_len < csv.header.size() && !o.output_len_override) {
      spec.max_tokens = whole_field(o.path, r.line, o.output_len_field, r.fields[out_len], 1);
    }
    if (stamp < csv.header.size()) {
      const double t = number_field(o.path, r.line, o.timestamp_field, r.fields[stamp]);
      if (std::isnan(first)) first = t;
      if (t < first) {
        fail_at(o.path, r.line,
                o.timestamp_field + " goes back in time: rows must be in time order");
      }
      spec.trace_s = t - first;
    }
    if (session < csv.header.size()) {
      spec.session_key = r.fields[session];
      if (spec.session_key.empty())
        fail_at(o.path, r.line, "the session ('" + o.session_field + "') is empty");
    }
    count_input(spec, spec.prompt, o.tokenizer);
    specs.push_back(std::move(spec));
  }
  if (specs.empty())
    throw std::runtime_error("dataset " + o.path + " has no rows under its header");
  return specs;
}

std::vector<core::RequestSpec> load_sharegpt_dataset(const DatasetOptions& o) {
  std::ifstream in(o.path);
  if (!in)
    throw std::runtime_error("cannot open dataset file " + o.path + ": check --dataset-path");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json doc;
  try {
    doc = core::parse_json(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann reports a byte offset: turn it into the line a person can open.
    const std::string s = text.str();
    // e.byte counts from 1 and points at the character that broke the parse.
    const std::size_t at = std::min(e.byte > 0 ? e.byte - 1 : 0, s.size());
    const auto line = static_cast<std::size_t>(std::count(s.begin(), s.begin() + at, '\n')) + 1;
    const std::string deep = core::json_depth_error(s);
    fail_at(o.path, line,
            deep.empty() ? "not valid JSON (a ShareGPT file is one JSON list)" : deep);
  }
  if (!doc.is_array()) {
    throw std::runtime_error("dataset " + o.path +
                             ": a ShareGPT file is a JSON list of {\"conversations\": [...]}");
  }
  std::vector<core::RequestSpec> specs;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const auto& item = doc[i];
    const auto bad = [&](const std::string& what) {
      throw std::runtime_error("dataset " + o.path + " conversation " + std::to_string(i) + ": " +
                               what);
    };
    if (!item.is_object() || !item.contains("conversations") || !item["conversations"].is_array()) {
      bad("needs \"conversations\": a list of {\"from\", \"value\"}");
    }
    const auto& turns = item["conversations"];
    // Every turn's "from" and "value", checked first.
    std::vector<std::size_t> human;  // indices of the human turns followed by a reply
    for (std::size_t t = 0; t < turns.size(); ++t) {
      if (!turns[t].is_object() || !turns[t].contains("from") || !turns[t].contains("value") ||
          !turns[t]["value"].is_string()) {
        bad("turn " + std::to_string(t) + " needs \"from\" and \"value\" (text)");
      }
      const std::string from =
          turns[t]["from"].is_string() ? turns[t]["from"].get<std::string>() : "";
      if ((from == "human" || from == "user") && t + 1 < turns.size()) human.push_back(t);
    }
    if (human.empty()) continue;  // no human turn with a reply after it
    for (std::size_t k = 0; k < (o.all_turns ? human.size() : 1); ++k) {
      const std::size_t h = human[k];
      const std::string prompt = turns[h]["value"].get<std::string>();
      const std::string reply = turns[h + 1]["value"].get<std::string>();
      const std::int64_t prompt_len = count_text(prompt, o.tokenizer);
      const std::int64_t reply_len = count_text(reply, o.tokenizer);
      const std::int64_t out =
          o.output_len_override ? o.output_len : std::max<std::int64_t>(1, reply_len);
      if (k == 0) {
        // vLLM's is_valid_sequence: min 4 tokens, prompt <= 1024, prompt + output <= 2048.
        if (prompt_len < 4 || (!o.output_len_override && reply_len < 4)) break;
        if (prompt_len > 1024 || prompt_len + out > 2048) break;
      } else if (prompt_len < 1) {
        continue;
      }
      core::RequestSpec spec;
      spec.id = specs.size();
      spec.prompt = prompt;
      spec.max_tokens = out;
      spec.input_tokens = prompt_len;
      spec.input_source =
          o.tokenizer != nullptr ? core::TokenSource::kTokenizer : core::TokenSource::kApproximate;
      if (o.all_turns) spec.session_key = std::to_string(i);
      specs.push_back(std::move(spec));
    }
  }
  if (specs.empty()) {
    throw std::runtime_error("dataset " + o.path +
                             " has no conversation that passes ShareGPT's filters (a human turn "
                             "of 4 to 1024 tokens with a reply of at least 4, 2048 in all)");
  }
  return specs;
}

PromptGenerator sonnet_generator(const DatasetOptions& o) {
  std::ifstream in(o.path);
  if (!in)
    throw std::runtime_error("cannot open dataset file " + o.path + ": check --dataset-path");
  // Lines keep their line break, as vLLM's readlines() does: a prompt is lines one under another.
  struct Poem {
    std::vector<std::string> lines;
    std::vector<std::int64_t> lens;
    std::string head;  // the instruction and the file's first lines, the same in every prompt
    std::int64_t head_len = 0;
  };
  auto poem = std::make_shared<Poem>();
  std::string line;
  core::LineReader reader(in, "dataset " + o.path);
  while (reader.next(line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    poem->lines.push_back(line + "\n");
    poem->lens.push_back(std::max<std::int64_t>(1, count_text(poem->lines.back(), o.tokenizer)));
  }
  if (poem->lines.empty()) {
    throw std::runtime_error("dataset " + o.path +
                             " has no lines: --dataset sonnet needs a text file of poem lines");
  }
  const std::int64_t base = count_text(kSonnetInstruction, o.tokenizer);
  if (o.input_len <= base) {
    throw std::runtime_error("--dataset sonnet: --input-len " + std::to_string(o.input_len) +
                             " leaves no room for lines after the instruction's " +
                             std::to_string(base) + " tokens");
  }
  poem->head = kSonnetInstruction;
  poem->head_len = base;
  for (std::size_t i = 0;
       i < poem->lines.size() && poem->head_len + poem->lens[i] <= o.sonnet_prefix_len; ++i) {
    poem->head += poem->lines[i];
    poem->head_len += poem->lens[i];
  }
  return [poem = std::shared_ptr<const Poem>(std::move(poem)), rng = std::mt19937_64(o.seed),
          input_len = o.input_len, output_len = o.output_len, tokenizer = o.tokenizer,
          id = std::uint64_t{0}]() mutable {
    std::uniform_int_distribution<std::size_t> pick(0, poem->lines.size() - 1);
    std::string text = poem->head;
    std::int64_t len = poem->head_len;
    for (;;) {
      const std::size_t i = pick(rng);
      if (len + poem->lens[i] > input_len) break;
      text += poem->lines[i];
      len += poem->lens[i];
    }
    core::RequestSpec spec;
    spec.id = id++;
    spec.max_tokens = output_len;
    // The lines' counts add up to an estimate; the prompt's own count is what is recorded.
    count_input(spec, text, tokenizer);
    spec.prompt = std::move(text);
    return spec;
  };
}

std::vector<core::RequestSpec> make_sonnet_dataset(const DatasetOptions& o, std::size_t count) {
  PromptGenerator generate = sonnet_generator(o);
  return take(generate, count);
}

PromptGenerator fixed_generator(const std::string& prompt, std::int64_t output_len,
                                const tokenizer::Tokenizer* tokenizer) {
  if (prompt.empty()) throw std::runtime_error("--dataset fixed needs --prompt TEXT");
  core::RequestSpec spec;
  spec.prompt = prompt;
  spec.max_tokens = output_len;
  count_input(spec, prompt, tokenizer);
  return [spec = std::move(spec), id = std::uint64_t{0}]() mutable {
    core::RequestSpec made = spec;
    made.id = id++;
    return made;
  };
}

std::vector<core::RequestSpec> make_fixed_dataset(const std::string& prompt, std::size_t count,
                                                  std::int64_t output_len,
                                                  const tokenizer::Tokenizer* tokenizer) {
  PromptGenerator generate = fixed_generator(prompt, output_len, tokenizer);
  return take(generate, count);
}

}  // namespace tokenbench::workload
