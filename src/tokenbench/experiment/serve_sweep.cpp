#include "tokenbench/experiment/serve_sweep.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "tokenbench/collect/server_process.h"
#include "tokenbench/core/secret_fields.h"
#include "tokenbench/core/text.h"
#include "tokenbench/experiment/html_pages.h"
#include "tokenbench/experiment/journal.h"
#include "tokenbench/experiment/pareto.h"
#include "tokenbench/records/results_dir.h"

namespace tokenbench::experiment {
namespace {

using nlohmann::json;

constexpr const char* kServerLog = "server.log";
constexpr const char* kHooksLog = "hooks.log";

json number_or_null(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

// The port of a configuration: its own --serve-param port, the one an interrupted run used
// (--resume: its levels were measured there), or a free one.
int port_of(const ServeConfig& config, const json& earlier) {
  if (const auto it = config.params.find("port"); it != config.params.end()) {
    try {
      return std::stoi(it->second);
    } catch (const std::exception&) {
      throw std::invalid_argument("--serve-param port=" + core::one_line(it->second) +
                                  " is not a port number");
    }
  }
  if (earlier.is_object() && earlier.value("port", 0) > 0) return earlier.value("port", 0);
  return collect::free_loopback_port();
}

// The configurations an earlier, interrupted run recorded in the root's sweep.json, by dir.
std::map<std::string, json> earlier_configs(const std::string& root) {
  std::map<std::string, json> out;
  const json doc = records::read_json_file(root + "/" + kSweepJson);
  if (!doc.is_object()) return out;
  for (const auto& c : doc.value("configurations", json::array())) {
    if (c.is_object()) out[c.value("dir", std::string())] = c;
  }
  return out;
}

// A configuration complete in an earlier run: its levels as that run's sweep.json kept them.
SweepResult kept_sweep(const std::string& dir, const std::vector<SweepLevel>& levels,
                       const SweepOptions& options) {
  SweepResult out;
  const auto done = completed_levels(dir, kSweepJson, "levels");
  for (const SweepLevel& level : levels) {
    const auto it = done.find(level.dir);
    if (it == done.end()) continue;
    SweepPoint p;
    p.level = level;
    p.summary = it->second;
    p.figures = figures_from_summary(p.summary);
    p.slo = check_slos(options.slos, p.figures);
    p.meets_slo = all_met(p.slo);
    p.complete = true;
    p.resumed = true;
    out.points.push_back(std::move(p));
  }
  return out;
}

class ConfigRun {
 public:
  ConfigRun(const core::RunConfig& base, const std::vector<SweepLevel>& levels,
            const SweepOptions& sweep, const ServeSweepOptions& serve, ConfigOutcome& out)
      : base_(base),
        levels_(levels),
        sweep_(sweep),
        serve_(serve),
        out_(out),
        dir_(base.output_dir + "/" + out.config.dir) {}

  // Runs the configuration; its outcome is in `out`. Returns the runner's interruption when
  // it was canceled ("" otherwise).
  void run(const RunnerFactory& make_runner, const json& earlier, const std::string& prefix);
  const std::string& interruption() const { return interruption_; }

 private:
  void fail(std::string status, const std::string& error, const std::string& log) {
    out_.status = std::move(status);
    out_.error = core::one_line(error);
    out_.log_tail = collect::log_tail(log);
  }
  std::string hook(const std::string& command, const char* flag) {
    if (command.empty()) return "";
    const std::string why = collect::run_hook(fill_placeholders(command, values_, flag),
                                              hooks_log(), sweep_.hook_timeout_s);
    return why.empty() ? "" : std::string(flag) + " " + why;
  }
  std::string server_log() const { return dir_ + "/" + kServerLog; }
  std::string hooks_log() const { return dir_ + "/" + kHooksLog; }
  void measure(const RunnerFactory& make_runner, const std::string& prefix);

  const core::RunConfig& base_;
  const std::vector<SweepLevel>& levels_;
  const SweepOptions& sweep_;
  const ServeSweepOptions& serve_;
  ConfigOutcome& out_;
  std::string dir_;
  std::map<std::string, std::string> values_;
  std::unique_ptr<collect::ServerProcess> server_;
  std::string interruption_;
};

void ConfigRun::run(const RunnerFactory& make_runner, const json& earlier,
                    const std::string& prefix) {
  std::filesystem::create_directories(dir_);
  try {
    out_.port = port_of(out_.config, earlier);
    values_ = out_.config.params;
    values_["port"] = std::to_string(out_.port);
    values_["config"] = out_.config.dir;
    values_["output_dir"] = dir_;
    out_.gpus =
        serve_.gpus_expr.empty()
            ? sweep_.gpus
            : evaluate_arithmetic(fill_placeholders(serve_.gpus_expr, values_, "--gpus"), "--gpus");
    if (!(out_.gpus > 0)) throw std::invalid_argument("--gpus must come to more than 0");
  } catch (const std::exception& e) {
    return fail("failed", e.what(), "");
  }
  if (const std::string why = hook(serve_.before_config, "--before-config"); !why.empty()) {
    return fail("failed", why, hooks_log());
  }
  measure(make_runner, prefix);
  if (server_) {
    server_->stop(std::chrono::milliseconds(static_cast<long>(serve_.stop_grace_s * 1000)));
    if (serve_.on_server) serve_.on_server(0);
  }
  if (const std::string why = hook(serve_.after_config, "--after-config"); !why.empty()) {
    std::fprintf(stderr, "tokenbench: warning: configuration %s: %s (see %s)\n",
                 out_.config.dir.c_str(), core::one_line(why).c_str(), hooks_log().c_str());
  }
}

void ConfigRun::measure(const RunnerFactory& make_runner, const std::string& prefix) {
  const std::string url = fill_placeholders(
      serve_.base_url.empty() ? "http://127.0.0.1:{port}" : serve_.base_url, values_, "--base-url");
  if (!serve_.serve_cmd.empty()) {
    try {
      server_ = std::make_unique<collect::ServerProcess>(
          fill_placeholders(serve_.serve_cmd, values_, "--serve-cmd"), server_log());
      if (serve_.on_server) serve_.on_server(server_->pid());
    } catch (const std::exception& e) {
      return fail("failed", e.what(), server_log());
    }
  }
  if (!serve_.serve_cmd.empty() || !serve_.before_config.empty()) {
    const auto ready = collect::wait_until_ready(server_.get(), url, serve_.ready_timeout_s,
                                                 serve_.stop_requested);
    if (!ready.ready) {
      if (serve_.stop_requested && serve_.stop_requested()) {
        interruption_ = "stopped while the server started";
        return fail("interrupted", ready.why, server_log());
      }
      // An external server's story is in the hooks' log; one tokenbench started, in its own.
      return fail(server_ && server_->exited() ? "failed" : "not_ready", ready.why,
                  server_ ? server_log() : hooks_log());
    }
    out_.ready_s = ready.waited_s;
  }
  Runner* runner = nullptr;
  core::RunConfig c = base_;
  c.gpus = out_.gpus;  // the cost figures at this configuration's GPUs
  try {
    runner = &make_runner(c, values_);
  } catch (const std::exception& e) {
    return fail("failed", e.what(), server_log());
  }
  c.output_dir = dir_;
  SweepOptions options = sweep_;
  options.gpus = out_.gpus;
  options.placeholders = values_;
  options.hook_log = hooks_log();
  options.resume = serve_.resume;
  options.progress_prefix = prefix;
  if (server_) {
    options.gone = [this] {
      return server_->exited() ? "the server " + server_->how_it_ended() : "";
    };
  }
  out_.sweep = run_sweep(*runner, c, levels_, options);
  if (out_.sweep.canceled) {
    interruption_ = out_.sweep.interrupted.empty() ? "interrupted" : out_.sweep.interrupted;
    out_.status = "interrupted";
  } else if (!out_.sweep.gone.empty()) {
    fail("crashed", out_.sweep.gone + " during a level", server_log());
  } else {
    out_.status = "complete";
  }
}

}  // namespace

namespace {

// The Pareto front across every configuration's complete levels, and the best of them.
void settle(ServeSweepResult& r, const SweepOptions& options) {
  std::vector<std::pair<double, double>> points;
  for (const ConfigOutcome& c : r.configs) {
    for (const SweepPoint& p : c.sweep.points) points.push_back(pareto_point(p, c.gpus));
  }
  const std::vector<bool> front = pareto_front(points);
  r.pareto.clear();
  r.best.reset();
  std::size_t k = 0;
  double best = -1;
  for (std::size_t i = 0; i < r.configs.size(); ++i) {
    const auto& pts = r.configs[i].sweep.points;
    r.pareto.emplace_back();
    for (std::size_t j = 0; j < pts.size(); ++j) {
      r.pareto.back().push_back(front[k++]);
      // The rule of one sweep's best level (find_best), across every configuration's levels.
      const double v = best_value(pts[j], options.by_goodput);
      if (!std::isnan(v) && v > best) {
        best = v;
        r.best = std::make_pair(i, j);
      }
    }
  }
}

void save(ServeSweepResult& r, const core::RunConfig& base, const SweepOptions& sweep,
          const ServeSweepOptions& serve) {
  settle(r, sweep);
  const std::string why =
      try_write_journal(base.output_dir, kSweepJson, serve_sweep_to_json(r, sweep, serve));
  if (!why.empty() && r.not_saved.empty()) r.not_saved = why;
  records::write_optional_file(base.output_dir + "/" + kSweepCsv,
                               [&] { return serve_sweep_to_csv(r); });
}

}  // namespace

ServeSweepResult run_serve_sweep(const core::RunConfig& base, const std::vector<SweepLevel>& levels,
                                 const SweepOptions& sweep, const ServeSweepOptions& serve,
                                 const RunnerFactory& make_runner,
                                 const std::function<void(const ConfigOutcome&)>& on_config) {
  ServeSweepResult result;
  const auto configs = serve_configs(serve.params, serve.links);
  const auto earlier =
      serve.resume ? earlier_configs(base.output_dir) : std::map<std::string, json>{};
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (serve.stop_requested && serve.stop_requested()) {
      result.canceled = true;
      break;
    }
    result.configs.push_back({});
    ConfigOutcome& out = result.configs.back();
    out.config = configs[i];
    const auto it = earlier.find(out.config.dir);
    const json before = it == earlier.end() ? json() : it->second;
    if (before.is_object() && before.value("status", std::string()) == "complete") {
      out.status = "complete";
      out.resumed = true;
      out.port = before.value("port", 0);
      out.gpus = before.value("gpus", sweep.gpus);
      out.ready_s = before.value("ready_s", -1.0);
      out.sweep = kept_sweep(base.output_dir + "/" + out.config.dir, levels, sweep);
      std::fprintf(stderr, "tokenbench: configuration %s: complete in an earlier run, kept\n",
                   out.config.dir.c_str());
    } else {
      ConfigRun run(base, levels, sweep, serve, out);
      run.run(make_runner, before,
              fmt::format("config {}/{} ({}) ", i + 1, configs.size(), out.config.dir));
      if (!run.interruption().empty()) {
        result.canceled = true;
        result.interrupted = run.interruption();
      }
    }
    save(result, base, sweep, serve);
    if (on_config) on_config(out);
    if (result.canceled) break;
  }
  save(result, base, sweep, serve);
  write_experiment_report_or_warn(base.output_dir);
  return result;
}

json serve_sweep_to_json(const ServeSweepResult& result, const SweepOptions& sweep,
                         const ServeSweepOptions& serve) {
  json configs = json::array();
  json levels = json::array();
  for (std::size_t i = 0; i < result.configs.size(); ++i) {
    const ConfigOutcome& c = result.configs[i];
    SweepOptions own = sweep;
    own.gpus = c.gpus;
    SweepResult with_front = c.sweep;
    with_front.pareto = i < result.pareto.size() ? result.pareto[i] : std::vector<bool>{};
    const json own_levels = sweep_to_json(with_front, own)["levels"];
    const auto best = find_best(c.sweep.points, sweep.by_goodput);
    configs.push_back(
        {{"dir", c.config.dir},
         {"label", c.config.label()},
         {"params", c.config.params},
         {"port", c.port},
         {"gpus", c.gpus},
         {"status", c.status},
         {"error", c.error.empty() ? json(nullptr) : json(c.error)},
         {"log_tail", c.log_tail.empty() ? json(nullptr) : json(c.log_tail)},
         {"ready_s", c.ready_s < 0 ? json(nullptr) : json(c.ready_s)},
         {"levels", c.sweep.points.size()},
         {"best_level", best ? json(c.sweep.points[*best].level.dir) : json(nullptr)},
         {"stopped", c.sweep.stopped.empty() ? json(nullptr) : json(c.sweep.stopped)}});
    for (json level : own_levels) {
      level["config"] = c.config.dir;
      level["params"] = c.config.params;
      level["level"] = level["dir"];
      level["dir"] = c.config.dir + "/" + level["dir"].get<std::string>();
      levels.push_back(std::move(level));
    }
  }
  json slos = json::array();
  for (const auto& e : sweep.slos) slos.push_back(e.text());
  json params = json::object();
  for (const auto& p : serve.params) params[p.name] = p.values;
  json best = nullptr;
  if (result.best) {
    const auto& [i, j] = *result.best;
    best = {
        {"config", result.configs[i].config.dir},
        {"level", result.configs[i].sweep.points[j].level.dir},
        {"dir", result.configs[i].config.dir + "/" + result.configs[i].sweep.points[j].level.dir}};
  }
  return json{
      {"kind", "serve_sweep"},
      {"serve_cmd", core::redact_command(serve.serve_cmd)},
      {"serve_params", std::move(params)},
      {"link", serve.links},
      {"configurations", std::move(configs)},
      {"levels", std::move(levels)},
      {"best", std::move(best)},
      {"best_by", sweep.by_goodput ? "request_goodput" : "request_throughput"},
      {"pareto_axes",
       "output_tps_per_gpu (output_throughput / the configuration's --gpus) against "
       "median_decode_tps, across every configuration's levels"},
      {"slo", std::move(slos)},
      {"canceled", result.canceled},
      {"interrupted", result.interrupted.empty() ? json(nullptr) : json(result.interrupted)}};
}

std::string serve_sweep_to_csv(const ServeSweepResult& result) {
  static constexpr const char* kColumns[] = {"completed",         "failed",
                                             "error_rate",        "request_throughput",
                                             "output_throughput", "request_goodput",
                                             "median_decode_tps", "p50_ttft_ms",
                                             "p95_ttft_ms",       "p99_ttft_ms",
                                             "p95_tpot_ms",       "p95_itl_ms",
                                             "p95_e2el_ms",       "usd_per_million_output_tokens"};
  std::vector<std::string> names;  // every parameter, in the order first seen
  for (const auto& c : result.configs) {
    for (const auto& n : c.config.order) {
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  }
  std::string out = "config,status";
  for (const auto& n : names) out += "," + n;
  out += ",gpus,max_concurrency,request_rate,level,complete";
  for (const char* c : kColumns) out += fmt::format(",{}", c);
  out += ",output_tps_per_gpu,meets_slo,pareto,best\n";
  const auto csv = [](const std::string& v) {
    if (v.find_first_of(",\"\n") == std::string::npos) return v;
    std::string q = "\"";
    for (const char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  for (std::size_t i = 0; i < result.configs.size(); ++i) {
    const ConfigOutcome& c = result.configs[i];
    const auto head = [&] {
      std::string h = csv(c.config.dir) + "," + c.status;
      for (const auto& n : names) {
        const auto it = c.config.params.find(n);
        h += "," + (it == c.config.params.end() ? std::string() : csv(it->second));
      }
      return h + fmt::format(",{}", c.gpus);
    };
    if (c.sweep.points.empty())
      out += head() + ",,,,false" + std::string(std::size(kColumns) + 4, ',') + "\n";
    for (std::size_t j = 0; j < c.sweep.points.size(); ++j) {
      const SweepPoint& p = c.sweep.points[j];
      out += head() + fmt::format(",{},{},{},{}", p.level.max_concurrency,
                                  std::isinf(p.level.request_rate)
                                      ? std::string("inf")
                                      : fmt::format("{:g}", p.level.request_rate),
                                  p.level.dir, p.complete);
      for (const char* col : kColumns) {
        const double v = figure(p.figures, col);
        out += std::isnan(v) ? "," : fmt::format(",{}", v);
      }
      const double per_gpu = figure(p.figures, "output_throughput") / c.gpus;
      const bool front =
          i < result.pareto.size() && j < result.pareto[i].size() && result.pareto[i][j];
      out += (std::isnan(per_gpu) ? std::string(",") : fmt::format(",{}", per_gpu)) +
             fmt::format(",{},{},{}\n", p.meets_slo, front, result.best == std::make_pair(i, j));
    }
  }
  return out;
}

std::string render_serve_sweep(const ServeSweepResult& result, const SweepOptions& sweep) {
  const auto cell = [](double v, const char* format) {
    return std::isnan(v) ? std::string("-") : fmt::format(fmt::runtime(format), v);
  };
  std::size_t width = 13;
  for (const auto& c : result.configs) width = std::max(width, c.config.label().size());
  std::string out = fmt::format("\nServer configurations ({}), each at its best level{}:\n",
                                result.configs.size(), sweep.slos.empty() ? "" : " under the SLOs");
  out += fmt::format("{:<{}} {:>11} {:>8} {:>8} {:>10} {:>10} {:>9} {:>9} {:>7}\n", "configuration",
                     width, "status", "level", "req/s", "out tok/s", "tok/s/GPU", "TTFT p95",
                     "TPOT p95", "errors");
  for (std::size_t i = 0; i < result.configs.size(); ++i) {
    const ConfigOutcome& c = result.configs[i];
    const auto best = find_best(c.sweep.points, sweep.by_goodput);
    const Figures none;
    const Figures& f = best ? c.sweep.points[*best].figures : none;
    const double err = figure(f, "error_rate");
    out += fmt::format(
        "{:<{}} {:>11} {:>8} {:>8} {:>10} {:>10} {:>9} {:>9} {:>7}{}\n", c.config.label(), width,
        c.status, best ? c.sweep.points[*best].level.dir : "-",
        cell(figure(f, "request_throughput"), "{:.2f}"),
        cell(figure(f, "output_throughput"), "{:.1f}"),
        cell(figure(f, "output_throughput") / c.gpus, "{:.1f}"),
        cell(figure(f, "p95_ttft_ms"), "{:.1f}"), cell(figure(f, "p95_tpot_ms"), "{:.2f}"),
        std::isnan(err) ? "-" : fmt::format("{:.1f}%", 100 * err),
        result.best && result.best->first == i ? "  <- best" : "");
    if (!c.error.empty()) out += fmt::format("  {}: {}\n", c.status, c.error);
  }
  std::string front;  // by configuration: "A at c1, c8; B at c32"
  for (std::size_t i = 0; i < result.pareto.size(); ++i) {
    std::string at;
    for (std::size_t j = 0; j < result.pareto[i].size(); ++j) {
      if (result.pareto[i][j])
        at += (at.empty() ? "" : ", ") + result.configs[i].sweep.points[j].level.dir;
    }
    if (!at.empty())
      front += (front.empty() ? "" : "; ") + result.configs[i].config.label() + " at " + at;
  }
  if (!front.empty()) {
    out += "Pareto front (output tok/s per GPU against a user's median decode tok/s): " + front +
           ".\n";
  }
  std::string slo_text;
  for (const auto& e : sweep.slos) slo_text += (slo_text.empty() ? "" : ", ") + e.text();
  if (result.best) {
    const auto& [i, j] = *result.best;
    const ConfigOutcome& c = result.configs[i];
    const Figures& f = c.sweep.points[j].figures;
    out += fmt::format(
        "Best configuration{}: {} at {} ({:.2f} req/s, {:.1f} output tok/s, {:.1f} per GPU{}).\n",
        slo_text.empty()
            ? " (no --slo: by " + std::string(sweep.by_goodput ? "goodput" : "request throughput") +
                  ")"
            : " under SLO (" + slo_text + ")",
        c.config.label(), c.sweep.points[j].level.dir, figure(f, "request_throughput"),
        figure(f, "output_throughput"), figure(f, "output_throughput") / c.gpus,
        std::isnan(figure(f, "usd_per_million_output_tokens"))
            ? ""
            : fmt::format(", ${:.3f} per 1M output tokens",
                          figure(f, "usd_per_million_output_tokens")));
  } else {
    out +=
        fmt::format("No configuration has a level{}.\n",
                    slo_text.empty() ? " that completed" : " meeting the SLOs (" + slo_text + ")");
  }
  if (!result.interrupted.empty() || result.canceled) {
    out += "INTERRUPTED: " +
           (result.interrupted.empty() ? std::string("stopped") : result.interrupted) +
           "; the configurations after it were not run.\n";
  }
  return out;
}

}  // namespace tokenbench::experiment
