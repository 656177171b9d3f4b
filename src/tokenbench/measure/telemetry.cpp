// A measurement's GPU sampler and /metrics scrapers, from start to notes.

#include "tokenbench/measure/telemetry.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "tokenbench/client/credentials.h"
#include "tokenbench/collect/child_process.h"
#include "tokenbench/collect/gpu_sampler.h"
#include "tokenbench/collect/scraper.h"
#include "tokenbench/core/text.h"
#include "tokenbench/telemetry/environment.h"

namespace tokenbench::measure {
namespace {

// "host:port" of an http(s) URL: how a replica is named on the console.
std::string host_port(const std::string& url) {
  std::string_view rest(url);
  if (const auto scheme = rest.find("://"); scheme != std::string_view::npos) {
    rest.remove_prefix(scheme + 3);
  }
  rest = rest.substr(0, rest.find('/'));
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
  return std::string(rest);
}

}  // namespace

void Telemetry::start(const core::RunConfig& config, const std::vector<Part>& parts,
                      const core::RunClock& clock, const std::atomic<bool>& canceled) {
  if (!canceled.load()) gpu_ = start_gpu_sampler(config, clock);
  if (config.probe_rate > 0 && !plan_.targets.empty()) {
    // Probes go to the first target (the deployment a new user would reach), started at the
    // measure phase's start.
    const driver::Target& t = plan_.targets.front();
    probe_rate_ = config.probe_rate;
    probes_ = std::make_unique<collect::ProbeSender>(
        t.base_url + config.endpoint, t.headers,
        collect::probe_body(std::string(core::to_string(config.api)),
                            t.model.empty() ? config.model : t.model),
        config.probe_rate, clock, client::get_options(config).tls);
  }
  const core::ServerMetricsSource source = core::server_metrics_source(config);
  if (source.off || canceled.load()) return;
  // Each part's replicas (one part: every target is a replica of it; several: one target each),
  // by their own /metrics; a --server-metrics URL that is one of them names it.
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::size_t first = parts.size() == 1 ? 0 : std::min(i, plan_.targets.size() - 1);
    const std::size_t last = parts.size() == 1 ? plan_.targets.size() : first + 1;
    for (std::size_t r = first; r < last; ++r) {
      const driver::Target& t = plan_.targets[r];
      const std::string url = t.base_url + "/metrics";
      telemetry::ScrapeSource s{host_port(url), plan_.redact(url), "replica", {}};
      for (const auto& m : source.urls) {
        if (m.url == url && !m.name.empty()) s.name = m.name;
      }
      const bool given = std::any_of(source.urls.begin(), source.urls.end(),
                                     [&url](const auto& m) { return m.url == url; });
      start_scraper(config, t, url, std::move(s), static_cast<int>(i), !given, clock);
    }
  }
  for (const auto& m : source.urls) {
    const bool replica =
        std::any_of(plan_.targets.begin(), plan_.targets.end(),
                    [&m](const auto& t) { return t.base_url + "/metrics" == m.url; });
    if (replica) continue;
    telemetry::ScrapeSource s{
        m.name.empty() ? host_port(m.url) : m.name, plan_.redact(m.url), "extra", {}};
    start_scraper(config, plan_.targets.front(), m.url, std::move(s), -1, false, clock);
  }
}

void Telemetry::start_scraper(const core::RunConfig& config, const driver::Target& target,
                              const std::string& url, telemetry::ScrapeSource source, int part,
                              bool automatic, const core::RunClock& clock) {
  // Credentials go only to the target's own origin, unless --server-metrics-auth.
  bool withheld = false;
  auto scraper = std::make_unique<collect::MetricsScraper>(
      url,
      client::headers_for_origin(url, target.base_url, target.headers, config.server_metrics_auth,
                                 &withheld),
      config.metrics_interval_s, clock, client::get_options(config));
  const telemetry::Scrape first = scraper->scrape_now("before");
  // Auto: only a server whose names tokenbench knows (docs/TELEMETRY.md) has something to say.
  if (automatic && (!first.ok || first.snapshot.kind == telemetry::ServerKind::kUnknown)) {
    return;
  }
  if (!first.ok) {
    std::fprintf(stderr, "tokenbench: warning: --server-metrics %s: %s; scraping goes on%s\n",
                 source.url.c_str(), core::one_line(plan_.redact(first.error)).c_str(),
                 withheld ? " (the API key was not sent to this origin, which is not "
                            "--base-url's: --server-metrics-auth sends it)"
                          : "");
  }
  scraper->start();
  scrapers_.push_back({part, std::move(source), std::move(scraper)});
}

void Telemetry::scrape_edge(bool starts) {
  for (auto& s : scrapers_) s.scraper->scrape_now(starts ? "measure_start" : "measure_end");
}

void Telemetry::probe_edge(bool starts) {
  if (!probes_) return;
  if (starts) {
    probes_->start();
  } else {
    probe_samples_ = probes_->stop();
    for (auto& p : probe_samples_) p.error = plan_.redact(std::move(p.error));
    probes_.reset();  // stopped: its samples are kept
  }
}

void Telemetry::stop_gpus(const core::RunConfig& config, core::Nanos measure_end, bool canceled) {
  if (!gpu_) return;
  // One sample after the measure phase's end, so that the energy spans the whole phase.
  if (measure_end != core::kNever && !canceled) {
    gpu_->wait_for_sample_after(measure_end,
                                std::chrono::milliseconds(std::min<long>(
                                    5000, std::lround(config.metrics_interval_s * 2000) + 500)));
  }
  gpu_->stop();
  gpu_samples_ = gpu_->samples();
  gpu_info_ = gpu_->info();
  gpu_info_->first_error = plan_.redact(std::move(gpu_info_->first_error));
}

void Telemetry::add_notes(std::size_t i, bool shared, records::RunNotes& notes) {
  for (auto& s : scrapers_) {
    if (s.part != -1 && s.part != static_cast<int>(i)) continue;
    s.scraper->stop();
    telemetry::ScrapeSource source = s.source;
    source.scrapes = s.scraper->scrapes();
    for (auto& scrape : source.scrapes) scrape.error = plan_.redact(std::move(scrape.error));
    notes.scrape_sources.push_back(std::move(source));
  }
  if (i == 0 && probe_rate_ > 0) {
    if (probes_) probe_edge(false);  // a run canceled before its measure phase ended
    notes.probe_rate = probe_rate_;
    notes.probes = probe_samples_;
  }
  notes.gpu_samples = gpu_samples_;
  notes.gpu_sampler = gpu_info_;
  notes.gpu_shared = shared;
}

nlohmann::json Telemetry::gpus() const {
  return gpu_info_ ? telemetry::gpus_summary(gpu_samples_, *gpu_info_) : nlohmann::json();
}

std::unique_ptr<collect::GpuSampler> Telemetry::start_gpu_sampler(const core::RunConfig& config,
                                                                  const core::RunClock& clock) {
  using Mode = core::GpuMetricsSource::Mode;
  const Mode mode = config.gpu_metrics.mode;
  const bool automatic = mode == Mode::kAuto;
  if (mode == Mode::kOff || (automatic && gpu_auto_off_)) return nullptr;
  const auto say_no_sampler = [this](const std::string& why) {
    gpu_auto_off_ = true;
    // Once per process: a sweep of server configurations makes a Runner for each.
    static std::atomic<bool> said{false};
    if (said.exchange(true)) return;
    std::fprintf(stderr,
                 "tokenbench: no GPU sampler: %s (use --gpu-metrics dcgm=URL for a remote "
                 "server's GPUs)\n",
                 core::one_line(why).c_str());
  };
  if (automatic && !collect::find_on_path("nvidia-smi")) {
    say_no_sampler("nvidia-smi is not on PATH");
    return nullptr;
  }
  std::unique_ptr<collect::GpuSampler> sampler;
  try {
    sampler = mode == Mode::kDcgm
                  ? collect::GpuSampler::dcgm(config.gpu_metrics.url, config.metrics_interval_s,
                                              clock, client::get_options(config))
                  : collect::GpuSampler::nvidia_smi(config.metrics_interval_s, clock);
  } catch (const std::exception& e) {
    if (automatic) {
      say_no_sampler(e.what());
    } else {
      std::fprintf(stderr, "tokenbench: warning: --gpu-metrics %s: %s; no GPU figures\n",
                   core::to_string(config.gpu_metrics).c_str(),
                   core::one_line(plan_.redact(e.what())).c_str());
    }
    return nullptr;
  }
  // nvidia-smi answers at once; a first sample slower than this will not make a time series.
  const auto first_wait = std::chrono::milliseconds(
      std::max<long>(5000, std::lround(config.metrics_interval_s * 2000)));
  if (sampler->wait_for_sample_after(core::kNever, first_wait)) return sampler;
  const telemetry::GpuSamplerInfo info = sampler->info();
  const std::string why = info.first_error.empty() ? "no sample arrived" : info.first_error;
  if (automatic) {
    sampler->stop();
    say_no_sampler("nvidia-smi gave no sample: " + why);
    return nullptr;
  }
  std::fprintf(stderr, "tokenbench: warning: --gpu-metrics %s: %s; sampling goes on\n",
               core::to_string(config.gpu_metrics).c_str(),
               core::one_line(plan_.redact(why)).c_str());
  return sampler;
}

}  // namespace tokenbench::measure
