// The datasets that are production traces giving lengths and times, not text: BurstGPT, Azure and
// Mooncake. Their prompts are synthetic, of the trace's lengths (PromptSynth).

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tokenbench/core/input_limits.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/workload/csv_reader.h"
#include "tokenbench/workload/dataset.h"
#include "tokenbench/workload/fields.h"
#include "tokenbench/workload/prompt_synth.h"

namespace tokenbench::workload {
namespace {

// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// "YYYY-MM-DD HH:MM:SS[.fraction]" as seconds since 1970 (the Azure trace's TIMESTAMP).
double civil_seconds(const std::string& path, std::size_t line, const std::string& v) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, consumed = 0;
  double s = 0;
  if (std::sscanf(v.c_str(), "%d-%d-%d %d:%d:%lf%n", &y, &mo, &d, &h, &mi, &s, &consumed) != 6 ||
      static_cast<std::size_t>(consumed) != v.size() || mo < 1 || mo > 12 || d < 1 || d > 31) {
    fail_at(path, line, "TIMESTAMP '" + v + "' is not YYYY-MM-DD HH:MM:SS[.fraction]");
  }
  return static_cast<double>(
             days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d))) *
             86400.0 +
         h * 3600.0 + mi * 60.0 + s;
}

// Requests of synthetic prompts from (time, input, output) rows, times made relative to the first.
struct Row {
  std::size_t line = 0;
  double t = 0;
  std::int64_t input = 0;
  std::int64_t output = 0;
};

std::vector<core::RequestSpec> synthesize(const DatasetOptions& o, const std::vector<Row>& rows,
                                          const std::string& what) {
  if (rows.empty()) throw std::runtime_error("dataset " + o.path + " has no " + what);
  PromptSynth synth(o.seed, o.tokenizer);
  std::vector<core::RequestSpec> specs;
  specs.reserve(rows.size());
  for (const Row& r : rows) {
    if (r.t < rows.front().t) {
      fail_at(o.path, r.line, "its time is before the first row's: rows must be in time order");
    }
    core::RequestSpec spec;
    spec.id = specs.size();
    SynthPrompt p = synth.make(r.input);
    spec.prompt = std::move(p.text);
    spec.input_tokens = p.tokens;
    spec.input_source = p.source;
    spec.max_tokens = o.output_len_override ? o.output_len : r.output;
    spec.trace_s = r.t - rows.front().t;
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace

std::vector<core::RequestSpec> load_burstgpt_dataset(const DatasetOptions& o) {
  const CsvFile csv = read_csv(o.path);
  const std::size_t t = csv.column(o.path, "Timestamp", "");
  const std::size_t model = csv.column(o.path, "Model", "");
  const std::size_t req = csv.column(o.path, "Request tokens", "");
  const std::size_t resp = csv.column(o.path, "Response tokens", "");
  std::vector<Row> rows;
  for (const auto& r : csv.records) {
    const std::int64_t out = whole_field(o.path, r.line, "Response tokens", r.fields[resp], 0);
    if (r.fields[model] != "GPT-4" || out <= 0) continue;  // vLLM's filter
    rows.push_back({r.line, number_field(o.path, r.line, "Timestamp", r.fields[t]),
                    whole_field(o.path, r.line, "Request tokens", r.fields[req], 1), out});
  }
  return synthesize(o, rows, "GPT-4 row with Response tokens above 0 (vLLM's filter)");
}

std::vector<core::RequestSpec> load_azure_dataset(const DatasetOptions& o) {
  const CsvFile csv = read_csv(o.path);
  const std::size_t t = csv.column(o.path, "TIMESTAMP", "");
  const std::size_t in = csv.column(o.path, "ContextTokens", "");
  const std::size_t out = csv.column(o.path, "GeneratedTokens", "");
  std::vector<Row> rows;
  for (const auto& r : csv.records) {
    rows.push_back({r.line, civil_seconds(o.path, r.line, r.fields[t]),
                    whole_field(o.path, r.line, "ContextTokens", r.fields[in], 1),
                    whole_field(o.path, r.line, "GeneratedTokens", r.fields[out], 1)});
  }
  return synthesize(o, rows, "rows under its header");
}

std::vector<core::RequestSpec> load_mooncake_dataset(const DatasetOptions& o) {
  std::ifstream in(o.path);
  if (!in)
    throw std::runtime_error("cannot open dataset file " + o.path + ": check --dataset-path");
  PromptSynth synth(o.seed, o.tokenizer);
  std::vector<core::RequestSpec> specs;
  std::string line;
  core::LineReader lines(in, "dataset " + o.path);
  double first = NAN;
  while (lines.next(line)) {
    const std::size_t line_no = lines.number();
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string why;
    const auto j = core::parse_json_or_discarded(line, &why);
    if (j.is_discarded()) fail_at(o.path, line_no, why.empty() ? "not a JSON object" : why);
    if (!j.is_object()) fail_at(o.path, line_no, "not a JSON object");
    for (const char* key : {"timestamp", "input_length", "output_length", "hash_ids"}) {
      if (!j.contains(key)) fail_at(o.path, line_no, std::string("needs \"") + key + "\"");
    }
    if (!j["timestamp"].is_number())
      fail_at(o.path, line_no, "\"timestamp\" must be a number (ms)");
    for (const char* key : {"input_length", "output_length"}) {
      if (!j[key].is_number_integer() || j[key].get<std::int64_t>() < 1) {
        fail_at(o.path, line_no, std::string("\"") + key + "\" must be a whole number >= 1");
      }
    }
    if (!j["hash_ids"].is_array()) fail_at(o.path, line_no, "\"hash_ids\" must be a list");
    const double t = j["timestamp"].get<double>() / 1000.0;
    if (std::isnan(first)) first = t;
    if (t < first) fail_at(o.path, line_no, "its timestamp is before the first line's");
    const auto input = j["input_length"].get<std::int64_t>();

    // The blocks of its hash ids in order, the last cut to input_length; any tokens beyond the
    // blocks the line names are the request's own.
    const auto hash_ids = hash_ids_field(j["hash_ids"]);
    if (!hash_ids) fail_at(o.path, line_no, "\"hash_ids\" must hold whole numbers >= 0");
    std::vector<std::int32_t> ids;
    std::string words;
    const std::int64_t have =
        synth.append_blocks(*hash_ids, kMooncakeBlockTokens, input, ids, words);
    core::RequestSpec spec;
    spec.id = specs.size();
    // Blocks are token ids with a tokenizer, words without one; the request's own tokens follow.
    SynthPrompt p = synth.exact() ? synth.make_after(ids, "", input - have)
                                  : synth.make_after({}, words, input - have);
    spec.prompt = std::move(p.text);
    spec.input_tokens = p.tokens;
    spec.input_source = p.source;
    spec.max_tokens = o.output_len_override ? o.output_len : j["output_length"].get<std::int64_t>();
    spec.trace_s = t - first;
    specs.push_back(std::move(spec));
  }
  if (specs.empty()) throw std::runtime_error("dataset " + o.path + " has no requests");
  return specs;
}

}  // namespace tokenbench::workload
