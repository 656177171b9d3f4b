#include "tokenbench/workload/trace_import.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "tokenbench/core/input_limits.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/workload/jobs.h"

namespace tokenbench::workload {

void ImportedJobs::add(nlohmann::ordered_json job, const ImportOptions& options) {
  const std::string name = job["job"].get<std::string>();
  if (const std::size_t seen = names_[name]++; seen > 0) {
    job["job"] = name + "#" + std::to_string(seen + 1);
    ++renamed;
  }
  std::string line = job.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const Job parsed = parse_job(line, 0, 0);  // throws, naming the job and call
  calls += parsed.calls.size();
  ++jobs;
  if (options.write) {
    options.write(line);
  } else {
    lines.push_back(std::move(line));
  }
}

double ImportedJobs::delay(double ms, const ImportOptions& options) {
  ms = std::max(0.0, ms);
  if (options.max_delay_ms >= 0 && ms > options.max_delay_ms) {
    ms = options.max_delay_ms;
    ++delays_capped;
  }
  // Whole microseconds: the file stays readable, and no timing is lost that a run could keep.
  ms = std::round(ms * 1000.0) / 1000.0;
  longest_delay_ms = std::max(longest_delay_ms, ms);
  return ms;
}

double write_call_head(nlohmann::ordered_json& call, const TracedCall& c,
                       const std::function<const TracedCall&(std::size_t)>& calls, double origin) {
  call["id"] = c.id;
  if (c.after.empty()) return origin;
  nlohmann::ordered_json after = nlohmann::ordered_json::array();
  double ready = 0;
  for (const std::size_t d : c.after) {
    after.push_back(calls(d).id);
    ready = std::max(ready, calls(d).end);
  }
  call["after"] = std::move(after);
  return ready;
}

std::vector<std::string> trace_files(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      std::vector<std::string> found;
      for (const auto& entry : fs::directory_iterator(input, ec)) {
        const std::string ext = entry.path().extension().string();
        if (entry.is_regular_file(ec) && (ext == ".json" || ext == ".jsonl")) {
          found.push_back(entry.path().string());
        }
      }
      if (found.empty()) {
        throw std::runtime_error("directory " + input + " holds no *.json or *.jsonl trace file");
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(input, ec)) {
      files.push_back(input);
    } else {
      throw std::runtime_error("cannot find " + input + ": give trace files or directories");
    }
  }
  return files;
}

void read_trace_documents(
    const std::string& path,
    const std::function<void(nlohmann::json&& document, std::size_t line)>& take) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open trace file " + path);
  // One document when the whole file is one (up to --max-line-bytes, as a line may be).
  const auto limit = static_cast<std::size_t>(core::max_line_bytes());
  std::string whole(limit + 1, '\0');
  in.read(whole.data(), static_cast<std::streamsize>(whole.size()));
  whole.resize(static_cast<std::size_t>(in.gcount()));
  if (whole.size() <= limit) {
    auto j = core::parse_json_or_discarded(whole);
    if (!j.is_discarded()) {
      whole.clear();
      whole.shrink_to_fit();
      take(std::move(j), 0);
      return;
    }
  }
  whole.clear();
  whole.shrink_to_fit();
  in.clear();
  in.seekg(0);
  std::size_t documents = 0;
  core::LineReader reader(in, "trace file " + path);
  std::string line;
  while (reader.next(line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string why;
    auto j = core::parse_json_or_discarded(line, &why);
    if (j.is_discarded()) {
      throw std::runtime_error("trace file " + path + " line " + std::to_string(reader.number()) +
                               ": " + (why.empty() ? "not JSON" : why) +
                               " (a trace file is one JSON document, or one a line)");
    }
    ++documents;
    take(std::move(j), reader.number());
  }
  if (documents == 0) throw std::runtime_error("trace file " + path + " is empty");
}

}  // namespace tokenbench::workload
