#include "tokenbench/measure/progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

namespace tokenbench::measure {

ProgressSampler::ProgressSampler(const std::vector<std::unique_ptr<records::Recorder>>& recorders,
                                 const core::RunConfig& config, const driver::Benchmark& watched,
                                 std::string label)
    : recorders_(recorders),
      watched_(watched),
      label_(std::move(label)),
      duration_s_(config.duration_s),
      t0_(std::chrono::steady_clock::now()) {
  const std::int64_t per_prompt = std::max<std::int64_t>(1, config.targets.size());
  total_ = config.num_prompts > 0 ? (config.num_prompts + config.warmup) * per_prompt : 0;
  tokens_.emplace_back(0.0, 0);
}

report::LiveFrame ProgressSampler::sample() {
  report::LiveFrame f;
  f.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  std::int64_t output = 0;
  for (const auto& r : recorders_) {
    f.done += r->finished();
    f.failed += r->failed();
    output += r->output_tokens();
  }
  std::tie(f.ttft_p50_ms, f.ttft_p95_ms) = recorders_.front()->recent_ttft();
  f.total = total_;
  f.in_flight = std::max<std::int64_t>(0, watched_.started() - f.done);
  tokens_.emplace_back(f.elapsed_s, output);
  while (tokens_.size() > 2 && f.elapsed_s - tokens_[1].first >= 2.0) tokens_.pop_front();
  const double span = f.elapsed_s - tokens_.front().first;
  f.output_tps = span > 0 ? static_cast<double>(output - tokens_.front().second) / span : 0;
  if (total_ > 0) {
    f.eta_s = f.done > 0
                  ? f.elapsed_s * static_cast<double>(total_ - f.done) / static_cast<double>(f.done)
                  : std::nan("");
  } else {
    f.eta_s = std::max(0.0, duration_s_ - f.elapsed_s);
  }
  f.level = label_;
  return f;
}

Progress::Progress(const std::vector<std::unique_ptr<records::Recorder>>& recorders,
                   const core::RunConfig& config, const driver::Benchmark& watched,
                   std::string label, bool terminal, double interval_s)
    : sampler_(recorders, config, watched, std::move(label)) {
  thread_ = std::thread([this, terminal, interval_s] { loop(terminal, interval_s); });
}

Progress::~Progress() { stop(); }

void Progress::stop() {
  finished_.store(true);
  if (thread_.joinable()) thread_.join();
}

void Progress::loop(bool terminal, double interval_s) {
  if (!terminal) {
    const auto step = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(interval_s));
    auto due = std::chrono::steady_clock::now() + step;
    while (!finished_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (std::chrono::steady_clock::now() < due) continue;
      due += step;
      std::fputs((report::render_progress_line(sampler_.sample()) + "\n").c_str(), stderr);
    }
    return;
  }
  std::size_t drawn = 0;
  bool last = false;
  while (!last) {
    last = finished_.load();
    if (!last) std::this_thread::sleep_for(std::chrono::milliseconds(250));
    const auto lines = report::render_live(sampler_.sample());
    std::fputs(report::redraw(lines, drawn).c_str(), stderr);
    drawn = lines.size();
  }
}

}  // namespace tokenbench::measure
