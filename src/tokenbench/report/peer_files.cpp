// --export's peer result files (peer_files.h): the choice of formats, where each is written, and
// vLLM's result JSON (vllm/benchmarks/serve.py @ 009e6d4a: `result_json` with --save-detailed).

#include "tokenbench/report/peer_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "tokenbench/core/clock.h"
#include "tokenbench/records/results_dir.h"

namespace tokenbench::report {
namespace {

using nlohmann::json;

double seconds(core::Nanos ns) { return static_cast<double>(ns) / 1e9; }

// Python's str(float): "10.0", "2.5", "inf".
std::string python_float(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  const double d = v.get<double>();
  if (std::isinf(d)) return "inf";
  if (d == std::floor(d) && std::abs(d) < 1e16) return fmt::format("{:.1f}", d);
  return fmt::format("{}", d);
}

}  // namespace

bool measured_request(const core::RequestRecord& r) {
  return r.phase == core::Phase::kMeasure && !r.retried && r.sent != core::kNever;
}

bool is_peer_export(std::string_view format) {
  return std::find(std::begin(kPeerExports), std::end(kPeerExports), format) !=
         std::end(kPeerExports);
}

std::vector<std::string> peer_exports(const std::vector<std::string>& formats) {
  std::vector<std::string> out;
  for (const auto& f : formats) {
    if (is_peer_export(f)) out.push_back(f);
  }
  return out;
}

std::string vllm_result_name(const json& summary) {
  std::string model = summary.value("model_id", std::string("model"));
  model = model.substr(model.rfind('/') == std::string::npos ? 0 : model.rfind('/') + 1);
  const json concurrency = summary.value("max_concurrency", json());
  return fmt::format("{}-{}qps{}-{}-{}.json", summary.value("backend", std::string("openai")),
                     python_float(summary.value("request_rate", json("inf"))),
                     concurrency.is_number() ? fmt::format("-concurrency{}", concurrency.get<int>())
                                             : std::string(),
                     model, summary.value("date", std::string()));
}

json vllm_result(const PeerFileInput& in) {
  json out = json::object();
  // vLLM's own keys, as summary.json holds them; tokenbench's block and cost figures left out.
  for (const auto& [key, value] : in.summary.items()) {
    if (key != "tokenbench" && key.rfind("usd_", 0) != 0) out[key] = value;
  }
  if (!out.contains("rtfx")) out["rtfx"] = 0.0;  // vLLM's real-time factor: audio runs only
  out["label"] = nullptr;
  out["tokenizer_id"] = in.config.tokenizer.empty() ? json(nullptr) : json(in.config.tokenizer);
  // --save-detailed: one element per request, failed ones included, in the order they were
  // sent; times in seconds, start_times from the first request sent.
  std::vector<const core::RequestRecord*> counted;
  for (const auto& r : in.records) {
    // vLLM's client sends no --nonstream-sample requests among its streams.
    if (measured_request(r) && !r.nonstream_sample) counted.push_back(&r);
  }
  std::sort(counted.begin(), counted.end(),
            [](const auto* a, const auto* b) { return a->sent < b->sent; });
  const core::Nanos first = counted.empty() ? 0 : counted.front()->sent;
  json input_lens = json::array(), output_lens = json::array(), ttfts = json::array(),
       itls = json::array(), latencies = json::array(), start_times = json::array(),
       queue_times = json::array(), texts = json::array(), errors = json::array();
  for (const core::RequestRecord* r : counted) {
    const bool ok = r->ok();
    input_lens.push_back(r->prompt_tokens);
    output_lens.push_back(ok ? r->output_tokens : 0);
    ttfts.push_back(ok && r->first_token != core::kNever ? seconds(r->first_token - r->sent) : 0.0);
    json gaps = json::array();
    for (std::size_t i = 1; ok && i < r->chunks.size(); ++i) {
      gaps.push_back(seconds(r->chunks[i].t - r->chunks[i - 1].t));
    }
    itls.push_back(std::move(gaps));
    latencies.push_back(ok && r->done != core::kNever ? seconds(r->done - r->sent) : 0.0);
    start_times.push_back(seconds(r->sent - first));
    queue_times.push_back(r->scheduled != core::kNever && r->sent > r->scheduled
                              ? seconds(r->sent - r->scheduled)
                              : 0.0);
    texts.push_back(r->output_text);
    errors.push_back(ok ? std::string() : r->error_message);
  }
  out["input_lens"] = std::move(input_lens);
  out["output_lens"] = std::move(output_lens);
  out["ttfts"] = std::move(ttfts);
  out["itls"] = std::move(itls);
  out["latencies"] = std::move(latencies);
  out["start_times"] = std::move(start_times);
  out["queue_times"] = std::move(queue_times);
  out["generated_texts"] = std::move(texts);
  out["errors"] = std::move(errors);
  return out;
}

std::vector<std::string> write_peer_files(const std::vector<std::string>& formats,
                                          const std::string& dir, const PeerFileInput& in) {
  namespace fs = std::filesystem;
  std::vector<std::string> written;
  const auto write = [&](const fs::path& relative, const std::string& text) {
    fs::create_directories((fs::path(dir) / relative).parent_path());
    records::write_text_file((fs::path(dir) / relative).string(), text);
    written.push_back(relative.string());
  };
  for (const auto& format : formats) {
    if (format == "vllm") {
      // vLLM's --result-filename names its result file; else vLLM's own name.
      write(in.config.result_filename.empty() ? vllm_result_name(in.summary)
                                              : in.config.result_filename,
            vllm_result(in).dump() + "\n");
    } else if (format == "aiperf") {
      write("profile_export_aiperf.json", aiperf_json(in) + "\n");
      write("profile_export_aiperf.csv", aiperf_csv(in));
    } else if (format == "guidellm") {
      write("benchmarks.json", guidellm_benchmarks(in) + "\n");
    } else if (format == "evalscope") {
      const fs::path run = fs::path("evalscope") / evalscope_run_dir(in.summary);
      write(run / "benchmark_summary.json", evalscope_summary(in).dump(4) + "\n");
      write(run / "benchmark_percentile.json", evalscope_percentiles(in).dump(4) + "\n");
    }
  }
  return written;
}

void gather_peer_files(const std::vector<std::string>& formats, const std::string& dir,
                       const std::vector<std::string>& levels) {
  namespace fs = std::filesystem;
  const auto wants = [&formats](const char* f) {
    return std::find(formats.begin(), formats.end(), f) != formats.end();
  };
  if (wants("guidellm")) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const auto& level : levels) {
      const fs::path file = fs::path(dir) / level / "benchmarks.json";
      if (!fs::is_regular_file(file)) continue;
      auto one = nlohmann::ordered_json::parse(records::read_text_file(file.string()));
      for (auto& b : one["benchmarks"]) {
        b["args"]["strategy_index"] = all.size();
        all.push_back(std::move(b));
      }
    }
    nlohmann::ordered_json out;
    out["benchmarks"] = std::move(all);
    records::write_text_file((fs::path(dir) / "benchmarks.json").string(), out.dump(4) + "\n");
  }
  if (wants("evalscope")) {
    for (const auto& level : levels) {
      const fs::path runs = fs::path(dir) / level / "evalscope";
      if (!fs::is_directory(runs)) continue;
      for (const auto& run : fs::directory_iterator(runs)) {
        const fs::path to = fs::path(dir) / "evalscope" / run.path().filename();
        fs::create_directories(to);
        fs::copy(run.path(), to,
                 fs::copy_options::overwrite_existing | fs::copy_options::recursive);
      }
    }
  }
}

}  // namespace tokenbench::report
