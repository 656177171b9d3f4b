#include "tokenbench/report/run_outputs.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tokenbench/metrics/checks.h"
#include "tokenbench/metrics/stream_check.h"
#include "tokenbench/report/console.h"
#include "tokenbench/report/replicas.h"
#include "tokenbench/report/summary_json.h"
#include "tokenbench/telemetry/server_account.h"
#include "tokenbench/telemetry/timings_account.h"

namespace tokenbench::report {

std::FILE* open_for_writing(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP) {
      throw std::runtime_error("cannot write " + path +
                               ": it is a symbolic link, which tokenbench does not write through; "
                               "remove it or choose another --output-dir");
    }
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(err));
  }
  std::FILE* file = ::fdopen(fd, "w");
  if (file == nullptr) {
    const int err = errno;
    ::close(fd);
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(err));
  }
  return file;
}

bool holds_results(const std::string& dir) {
  return std::filesystem::exists(dir + "/" + kRequestsFile) ||
         std::filesystem::exists(dir + "/" + kSummaryFile);
}

void write_text_file(const std::string& path, const std::string& text) {
  // Write beside the target, then rename: a reader never sees a half-written file, a failed
  // write (a full disk) leaves no .tmp behind, and a link at either name is never followed.
  const std::string tmp = path + ".tmp";
  const auto fail = [&](int err) {
    std::remove(tmp.c_str());
    return std::runtime_error("cannot write " + path + ": " + std::strerror(err));
  };
  std::remove(tmp.c_str());
  std::FILE* out = open_for_writing(tmp);
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  const int write_err = errno;
  if (std::fclose(out) != 0 || !written) throw fail(written ? errno : write_err);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw fail(errno);
}

void write_telemetry(const std::string& dir, const RunNotes& notes) {
  std::string text;
  for (const auto& s : notes.scrapes) {
    nlohmann::json line = telemetry::scrape_to_json(s);
    line["url"] = notes.metrics_url;
    text += line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    text += '\n';
  }
  write_text_file(dir + "/" + kTelemetryFile, text);
}

RunNotes read_telemetry(const std::string& dir) {
  RunNotes out;
  const std::string path = dir + "/" + kTelemetryFile;
  std::ifstream in(path);
  if (!in) return out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    try {
      const auto json = nlohmann::json::parse(line);
      out.scrapes.push_back(telemetry::scrape_from_json(json));
      if (out.metrics_url.empty()) out.metrics_url = json.value("url", "");
    } catch (const std::exception& e) {
      throw std::runtime_error(path + " line " + std::to_string(number) + ": " + e.what());
    }
  }
  return out;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {

// Every stamp times `factor` (kNever stays): the run as the simulator's model time saw it.
std::vector<core::RequestRecord> rescaled(std::vector<core::RequestRecord> records, double factor) {
  const auto scale = [factor](core::Nanos& t) {
    if (t != core::kNever)
      t = static_cast<core::Nanos>(std::llround(static_cast<double>(t) * factor));
  };
  for (auto& r : records) {
    for (core::Nanos* t :
         {&r.scheduled, &r.sent, &r.headers, &r.first_token, &r.last_token, &r.done}) {
      scale(*t);
    }
    for (auto& c : r.chunks) scale(c.t);
    if (r.server_timings) {  // the simulator's own times, in real time like the stamps
      r.server_timings->prompt_ms *= factor;
      r.server_timings->predicted_ms *= factor;
    }
  }
  return records;
}

// Warnings that need the configuration: simulated time, and a 404 that names a wrong endpoint.
void add_config_warnings(metrics::Summary& s, const core::RunConfig& config) {
  if (config.sim_time_scale != 1.0) {
    s.warnings.push_back(
        config.sim_time
            ? fmt::format("simulated time: serve-sim ran {:g}x faster than the deployment it "
                          "models; figures are rescaled to its model time (--sim-time)",
                          config.sim_time_scale)
            : fmt::format("simulated time: serve-sim runs {:g}x faster than the deployment it "
                          "models, so latencies are {:g}x shorter and rates {:g}x higher than "
                          "the model's; --sim-time reports model time",
                          config.sim_time_scale, config.sim_time_scale, config.sim_time_scale));
  }
  if (s.http_status.contains(404)) {
    s.warnings.push_back(fmt::format(
        "HTTP 404 on {}: {} requests go to {} ({}); check --endpoint and --model", config.endpoint,
        core::to_string(config.api),
        config.api == core::ApiKind::kOpenAIChat ? "/v1/chat/completions" : "/v1/completions",
        config.api == core::ApiKind::kOpenAIChat
            ? "legacy completions, --api openai: "
              "/v1/completions"
            : "chat, --api openai-chat: /v1/chat/completions"));
  }
}

}  // namespace

RunOutputs write_run_outputs(const std::string& dir,
                             const std::vector<core::RequestRecord>& records,
                             const core::RunConfig& config, const RunNotes& notes) {
  const std::string& stopped = notes.stopped;
  metrics::SummaryOptions options;
  options.percentiles = config.percentiles;
  options.slo = metrics::parse_slo(config.goodput);
  RunOutputs out;
  const bool model_time = config.sim_time && config.sim_time_scale != 1.0;
  out.summary = model_time ? metrics::summarize(rescaled(records, config.sim_time_scale), options)
                           : metrics::summarize(records, options);
  add_config_warnings(out.summary, config);
  if (!stopped.empty()) out.summary.warnings.push_back("the run was stopped early by " + stopped);
  // Server text in error examples may be invalid UTF-8: replaced, never a lost summary.
  out.summary_json = summary_to_json(out.summary, config);
  out.summary_json["tokenbench"]["stopped"] =
      stopped.empty() ? nlohmann::json() : nlohmann::json(stopped);
  out.console = render_console_report(out.summary, config);
  if (out.summary.completed > 0) {
    const metrics::Checks checks = metrics::run_checks(records, out.summary, config);
    out.summary_json["tokenbench"]["checks"] = metrics::checks_to_json(checks);
    out.console += metrics::render_checks(checks);
    if (const auto stream = metrics::stream_check(records)) {
      out.summary_json["tokenbench"]["checks"]["stream_vs_nonstream"] =
          metrics::stream_check_to_json(*stream);
      out.console += metrics::render_stream_check(*stream);
    }
  }
  if (!notes.scrapes.empty()) {
    const telemetry::ServerAccount account =
        telemetry::account_for(notes.scrapes, notes.metrics_url, out.summary);
    out.summary_json["tokenbench"]["server"] = telemetry::account_to_json(account);
    out.console += telemetry::render_account(account, out.summary);
  }
  const auto timings = model_time
                           ? telemetry::timings_account(rescaled(records, config.sim_time_scale))
                           : telemetry::timings_account(records);
  if (timings) {
    out.summary_json["tokenbench"]["server_timings"] = telemetry::timings_account_to_json(*timings);
    out.console += telemetry::render_timings_account(*timings);
  }
  if (config.replica_urls.size() > 1) {
    const auto replicas =
        per_replica(records, config.replica_urls, options, out.summary.duration_s);
    out.summary_json["tokenbench"]["replicas"] = replicas_to_json(replicas);
    out.console += render_replicas(replicas, out.summary, core::to_string(config.balance));
  }
  write_text_file(dir + "/" + kReportFile, out.console);
  write_text_file(
      dir + "/" + kSummaryFile,
      out.summary_json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  return out;
}

}  // namespace tokenbench::report
