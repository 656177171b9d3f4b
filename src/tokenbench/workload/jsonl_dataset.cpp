#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tokenbench/core/input_limits.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/workload/dataset.h"
#include "tokenbench/workload/file_lines.h"

namespace tokenbench::workload {
namespace {

[[noreturn]] void fail(const std::string& path, std::size_t line, const std::string& what) {
  throw std::runtime_error("dataset " + path + " line " + std::to_string(line) + ": " + what);
}

// The request of one line of a JSON Lines dataset (its id left to the caller).
core::RequestSpec jsonl_spec(const std::string& line, const std::string& path, std::size_t line_no,
                             std::int64_t default_output_len, const tokenizer::Tokenizer* tokenizer,
                             const std::string& session_field) {
  std::string why;
  const auto j = core::parse_json_or_discarded(line, &why);
  if (j.is_discarded()) fail(path, line_no, why.empty() ? "not a JSON object" : why);
  if (!j.is_object()) fail(path, line_no, "not a JSON object");
  core::RequestSpec spec;
  std::string text_for_count;
  if (j.contains("prompt")) {
    if (!j["prompt"].is_string()) fail(path, line_no, "\"prompt\" must be a string");
    spec.prompt = j["prompt"].get<std::string>();
    text_for_count = spec.prompt;
  } else if (j.contains("messages")) {
    const auto& m = j["messages"];
    if (!m.is_array() || m.empty()) fail(path, line_no, "\"messages\" must be a non-empty array");
    for (const auto& msg : m) {
      if (!msg.is_object() || !msg.contains("role") || !msg.contains("content")) {
        fail(path, line_no, "each message needs \"role\" and \"content\"");
      }
      if (msg["content"].is_string()) {
        if (!text_for_count.empty()) text_for_count += ' ';
        text_for_count += msg["content"].get<std::string>();
      }
    }
    spec.messages_json = m.dump();
    // The completions API needs a prompt: the last user message stands in for it.
    for (const auto& msg : m) {
      if (msg["role"] == "user" && msg["content"].is_string()) {
        spec.prompt = msg["content"].get<std::string>();
      }
    }
  } else if (j.contains("text")) {
    // AIPerf's single_turn file: its "text" is the prompt.
    if (!j["text"].is_string()) fail(path, line_no, "\"text\" must be a string");
    spec.prompt = j["text"].get<std::string>();
    text_for_count = spec.prompt;
  } else {
    fail(path, line_no,
         "needs \"prompt\" (string), \"messages\" (array) or \"text\" (string, AIPerf's "
         "single_turn)");
  }
  spec.max_tokens = default_output_len;
  for (const char* key : {"output_len", "max_tokens"}) {
    if (j.contains(key)) {
      if (!j[key].is_number_integer() || j[key].get<std::int64_t>() < 1) {
        fail(path, line_no, std::string("\"") + key + "\" must be a positive integer");
      }
      spec.max_tokens = j[key].get<std::int64_t>();
    }
  }
  if (!session_field.empty()) {
    const auto key = j.find(session_field);
    if (key == j.end() || !(key->is_string() || key->is_number_integer())) {
      fail(path, line_no, "needs \"" + session_field + "\" (--session-field): a string or integer");
    }
    spec.session_key = key->is_string() ? key->get<std::string>() : key->dump();
  }
  count_input(spec, text_for_count, tokenizer);
  return spec;
}

FileLines open_lines(const std::string& path) {
  if (!std::ifstream(path)) {
    throw std::runtime_error("cannot open dataset file " + path +
                             ": check --dataset-path (a JSON Lines file)");
  }
  return FileLines(path, "dataset " + path);
}

}  // namespace

std::vector<core::RequestSpec> load_jsonl_dataset(const std::string& path,
                                                  std::int64_t default_output_len,
                                                  const tokenizer::Tokenizer* tokenizer,
                                                  const std::string& session_field) {
  FileLines lines = open_lines(path);
  std::vector<core::RequestSpec> specs;
  std::string line;
  std::size_t number = 0;
  while (lines.next(line, number)) {
    specs.push_back(jsonl_spec(line, path, number, default_output_len, tokenizer, session_field));
    specs.back().id = specs.size() - 1;
  }
  if (specs.empty()) throw std::runtime_error("dataset " + path + " has no requests");
  return specs;
}

std::size_t check_jsonl_dataset(const std::string& path) {
  FileLines lines = open_lines(path);
  std::string line;
  std::size_t number = 0;
  std::size_t count = 0;
  for (; lines.next(line, number); ++count) jsonl_spec(line, path, number, 0, nullptr, "");
  if (count == 0) throw std::runtime_error("dataset " + path + " has no requests");
  return count;
}

PromptGenerator jsonl_generator(const std::string& path, std::int64_t default_output_len,
                                const tokenizer::Tokenizer* tokenizer) {
  return [lines = open_lines(path), path, default_output_len, tokenizer,
          id = std::uint64_t{0}]() mutable {
    std::string line;
    std::size_t number = 0;
    if (!lines.next(line, number)) lines.ended_early();
    core::RequestSpec spec = jsonl_spec(line, path, number, default_output_len, tokenizer, "");
    spec.id = id++;
    return spec;
  };
}

}  // namespace tokenbench::workload
