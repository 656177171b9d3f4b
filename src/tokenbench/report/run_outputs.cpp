#include "tokenbench/report/run_outputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "tokenbench/core/secret_fields.h"
#include "tokenbench/core/text.h"
#include "tokenbench/metrics/verdict.h"
#include "tokenbench/records/results_dir.h"
#include "tokenbench/report/console.h"
#include "tokenbench/report/html_report.h"
#include "tokenbench/report/ranks.h"
#include "tokenbench/report/replicas.h"
#include "tokenbench/report/steady_figures.h"
#include "tokenbench/report/summary_json.h"
#include "tokenbench/telemetry/environment.h"
#include "tokenbench/telemetry/gpu_account.h"
#include "tokenbench/telemetry/probe_account.h"
#include "tokenbench/telemetry/server_account.h"

namespace tokenbench::report {

namespace {

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
        "HTTP 404 on {}: --api {} requests usually go to {}; check --endpoint, --api (openai-chat, "
        "openai, openai-embeddings, anthropic-messages, openai-responses) and --model",
        core::redact_query(config.endpoint), core::to_string(config.api),
        core::default_endpoint(config.api)));
  }
}

// Each /metrics source's account, and the replicas' total when there are several: the
// cross-check against the client's counts is made where one server saw every request.
std::optional<telemetry::ServerAccount> add_server_accounts(const records::RunNotes& notes,
                                                            double factor, RunOutputs& out) {
  const auto& sources = notes.scrape_sources;
  std::vector<const std::vector<telemetry::Scrape>*> replica_scrapes;
  for (const auto& s : sources) {
    if (s.role == "replica") replica_scrapes.push_back(&s.scrapes);
  }
  std::vector<telemetry::ServerAccount> accounts;
  std::vector<telemetry::ServerAccount> replicas;
  for (const auto& s : sources) {
    // The one source, or the one replica beside extra URLs, saw every request.
    const bool check = sources.size() == 1 || (replica_scrapes.size() == 1 && s.role == "replica");
    telemetry::ServerAccount a =
        telemetry::account_for(s.scrapes, s.url, out.summary, factor, check);
    a.name = sources.size() == 1 ? "" : s.name;
    a.role = s.role;
    if (s.role == "replica") replicas.push_back(a);
    accounts.push_back(std::move(a));
  }
  std::size_t primary = 0;
  if (replicas.size() > 1) {
    accounts.push_back(telemetry::total_account(replica_scrapes, replicas, out.summary, factor));
    primary = accounts.size() - 1;
  }
  out.summary_json["tokenbench"]["server"] = telemetry::account_to_json(accounts[primary]);
  if (accounts.size() > 1) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& a : accounts) list.push_back(telemetry::account_to_json(a));
    out.summary_json["tokenbench"]["servers"] = std::move(list);
  }
  for (const auto& a : accounts) out.console += telemetry::render_account(a, out.summary);
  return accounts[primary];
}

// The self-checks (tokenbench.checks, the console's Checks block), with the stream check.
std::optional<metrics::Checks> add_checks(const RunFigures& figures, const core::RunConfig& config,
                                          const records::RunNotes& notes, RunOutputs& out) {
  if (out.summary.completed == 0) return std::nullopt;
  metrics::Checks checks =
      figures.checks().finish(out.summary, config, notes.client_cpu, notes.read_lag);
  out.summary_json["tokenbench"]["checks"] = metrics::checks_to_json(checks);
  out.console += metrics::render_checks(checks);
  if (const auto stream = figures.stream().finish()) {
    out.summary_json["tokenbench"]["checks"]["stream_vs_nonstream"] =
        metrics::stream_check_to_json(*stream);
    out.console += metrics::render_stream_check(*stream);
  }
  return checks;
}

// Who held the run back (metrics/verdict.h): tokenbench.verdict and the console's last line.
void add_verdict(const metrics::Checks& checks,
                 const std::optional<telemetry::ServerAccount>& server, RunOutputs& out) {
  metrics::VerdictInputs in = metrics::verdict_inputs(out.summary, checks);
  if (server && server->measured) {
    in.server = true;
    if (server->queue) in.queue_mean_ms = server->queue->mean_ms;
    if (server->waiting) {
      in.waiting_mean = server->waiting->mean;
      in.waiting_max = server->waiting->max;
    }
    if (server->running) in.running_mean = server->running->mean;
    if (server->ttft) in.server_ttft_mean_ms = server->ttft->mean_ms;
    if (server->itl) in.server_itl_mean_ms = server->itl->mean_ms;
    if (server->ttft_overhead_ms) in.ttft_overhead_ms = *server->ttft_overhead_ms;
  }
  out.verdict = metrics::judge(in);
  out.summary_json["tokenbench"]["verdict"] = metrics::verdict_to_json(*out.verdict);
  out.console += "\nVerdict: " + out.verdict->line() + "\n";
}

}  // namespace

RunOutputs write_run_outputs(const std::string& dir,
                             const std::vector<core::RequestRecord>& records,
                             const core::RunConfig& config, const records::RunNotes& notes) {
  RunFigures figures(config);
  for (const auto& r : records) figures.add(r);
  return write_run_outputs(dir, figures, config, notes);
}

RunOutputs write_run_outputs(const std::string& dir, const RunFigures& figures,
                             const core::RunConfig& config, const records::RunNotes& notes) {
  const std::string& stopped = notes.stopped;
  RunOutputs out;
  // Under --sim-time every figure of the server is in the simulator's model time; the client's
  // own costs (queue time, CPU) stay real (metrics/model_time.h).
  const double factor = figures.factor();
  out.summary = figures.summary().finish();
  add_config_warnings(out.summary, config);
  if (!stopped.empty()) out.summary.warnings.push_back("stopped early: " + stopped);
  // Server text in error examples may be invalid UTF-8: replaced, never a lost summary.
  out.summary_json = summary_to_json(out.summary, config);
  out.summary_json["tokenbench"]["stopped"] =
      stopped.empty() ? nlohmann::json() : nlohmann::json(stopped);
  out.console = render_console_report(out.summary, config);
  const std::optional<metrics::Checks> checks = add_checks(figures, config, notes, out);
  if (figures.steady() && out.summary.completed > 0) {
    SteadyFigures steady = steady_state_figures(dir, figures, out.summary_json, config);
    out.summary_json["tokenbench"]["steady_state"] = std::move(steady.json);
    out.console += steady.console;
  }
  if (notes.probe_rate > 0) {
    const auto probes = telemetry::account_probes(notes.probes, notes.probe_rate, factor);
    out.summary_json["tokenbench"]["probes"] = telemetry::probe_account_to_json(probes);
    out.console += telemetry::render_probe_account(probes);
  }
  std::optional<telemetry::ServerAccount> server;
  if (!notes.scrape_sources.empty()) server = add_server_accounts(notes, factor, out);
  if (notes.gpu_sampler) {
    const telemetry::GpuAccount gpu =
        telemetry::gpu_account_for(notes.gpu_samples, *notes.gpu_sampler, notes.measure_start,
                                   notes.measure_end, out.summary, notes.gpu_shared);
    out.summary_json["tokenbench"]["gpu"] = telemetry::gpu_account_to_json(gpu);
    out.console += telemetry::render_gpu_account(gpu);
  }
  if (const auto timings = figures.timings().finish()) {
    out.summary_json["tokenbench"]["server_timings"] = telemetry::timings_account_to_json(*timings);
    out.console += telemetry::render_timings_account(*timings);
  }
  if (!figures.buckets().empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& builder : figures.buckets()) {
      const auto buckets = builder.finish();
      list.push_back(metrics::buckets_to_json(builder.spec(), buckets));
      out.console += metrics::render_buckets(builder.spec(), buckets);
    }
    out.summary_json["tokenbench"]["buckets"] = std::move(list);
  }
  if (figures.replicas()) {
    const auto replicas = figures.replicas()->finish(out.summary.duration_s);
    out.summary_json["tokenbench"]["replicas"] = replicas_to_json(replicas);
    out.console += render_replicas(replicas, out.summary, core::to_string(config.balance));
  }
  if (figures.mix()) {
    const auto members = figures.mix()->finish();
    out.summary_json["tokenbench"]["mix"] = mix_to_json(members, figures.mix()->lora());
    out.console += render_mix(members, figures.mix()->lora());
  }
  if (!notes.distributed.is_null()) {
    out.summary_json["tokenbench"]["distributed"] = notes.distributed;
    out.console += render_ranks(notes.distributed);
  }
  if (!notes.environment.is_null()) {
    out.summary_json["tokenbench"]["environment"] = notes.environment;
    out.console += telemetry::render_environment(notes.environment);
  }
  if (checks) add_verdict(*checks, server, out);
  // Last line of defence: whatever part quoted a server, no escape sequence reaches a terminal.
  out.console = core::terminal_safe(out.console);
  // The summary is the result: written first, while there is room (a reserve made at the run's
  // start is given back for it), and the rest only after it. Any other file that cannot be
  // written is a warning.
  const std::string summary_text =
      out.summary_json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  records::release_reserve(dir);
  try {
    records::write_text_file(dir + "/" + records::kSummaryFile, summary_text);
  } catch (const std::exception& e) {
    out.not_saved = e.what();
  }
  records::write_optional_file(dir + "/" + records::kReportFile, [&] { return out.console; });
  // vLLM's --result-filename: the same result under the name a vLLM script looks for (with
  // --export vllm, vLLM's own result file takes the name: peer_files.h).
  if (!config.result_filename.empty() &&
      std::find(config.exports.begin(), config.exports.end(), "vllm") == config.exports.end()) {
    records::write_optional_file(dir + "/" + config.result_filename, [&] { return summary_text; });
  }
  // The page shows config.yaml as stored (secrets redacted), so that `report` rebuilds the same.
  records::write_optional_file(dir + "/" + kHtmlReportFile, [&] {
    const std::string config_path = dir + "/" + records::kConfigFile;
    const std::string config_yaml = std::filesystem::is_regular_file(config_path)
                                        ? records::read_text_file(config_path)
                                        : core::to_yaml(config);
    return render_html_report(html_report_data(figures.page(), figures.summary(), out.summary_json,
                                               out.console, config_yaml, notes));
  });
  return out;
}

}  // namespace tokenbench::report
