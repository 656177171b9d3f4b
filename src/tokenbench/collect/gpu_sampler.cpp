#include "tokenbench/collect/gpu_sampler.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <thread>

#include "tokenbench/client/http_get.h"
#include "tokenbench/collect/child_process.h"
#include "tokenbench/core/text.h"

namespace tokenbench::collect {
namespace {

// A line of nvidia-smi's CSV is about 120 bytes; anything this long is not one.
constexpr std::size_t kMaxLine = 4096;

}  // namespace

GpuSampler::GpuSampler(telemetry::GpuSamplerInfo info, const core::RunClock& clock)
    : clock_(clock), info_(std::move(info)) {}

std::unique_ptr<GpuSampler> GpuSampler::nvidia_smi(double interval_s, const core::RunClock& clock,
                                                   const std::string& program) {
  telemetry::GpuSamplerInfo info;
  info.source = "nvidia-smi";
  info.interval_s = interval_s;
  std::unique_ptr<GpuSampler> s(new GpuSampler(std::move(info), clock));
  const long ms = std::max(1L, std::lround(interval_s * 1000));
  s->child_ = std::make_unique<ChildProcess>(
      std::vector<std::string>{program, std::string("--query-gpu=") + telemetry::kNvidiaSmiQuery,
                               "--format=csv,noheader,nounits", "-lms", std::to_string(ms)});
  if (::pipe2(s->wake_fds_, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("cannot start the GPU sampler: pipe: ") +
                             std::strerror(errno));
  }
  s->thread_ = std::thread([p = s.get()] { p->read_lines(); });
  return s;
}

std::unique_ptr<GpuSampler> GpuSampler::dcgm(const std::string& url, double interval_s,
                                             const core::RunClock& clock,
                                             client::HttpGetOptions get) {
  telemetry::GpuSamplerInfo info;
  info.source = "dcgm";
  info.url = url;
  info.interval_s = interval_s;
  std::unique_ptr<GpuSampler> s(new GpuSampler(std::move(info), clock));
  s->get_ = std::move(get);
  s->thread_ = std::thread([p = s.get()] { p->scrape_loop(); });
  return s;
}

GpuSampler::~GpuSampler() {
  stop();
  for (const int fd : wake_fds_) {
    if (fd >= 0) ::close(fd);
  }
}

void GpuSampler::add(std::vector<telemetry::GpuSample> batch) {
  if (batch.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& s : batch) samples_.push_back(std::move(s));
  }
  changed_.notify_all();
}

void GpuSampler::fail(const std::string& error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++info_.failed_samples;
    if (info_.first_error.empty()) info_.first_error = core::one_line(error);
  }
  changed_.notify_all();
}

void GpuSampler::read_lines() {
  std::string pending;
  bool overlong = false;  // dropping the rest of a line past kMaxLine
  char buf[4096];
  const auto take_line = [&](std::string_view line,
                             core::Nanos t) -> std::optional<telemetry::GpuSample> {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return std::nullopt;
    telemetry::GpuLineResult r = telemetry::parse_nvidia_smi_line(line, t);
    if (!r.sample) fail(r.error);
    return std::move(r.sample);
  };
  while (true) {
    pollfd fds[2] = {{child_->output_fd(), POLLIN, 0}, {wake_fds_[0], POLLIN, 0}};
    const int n = ::poll(fds, 2, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(std::string("nvidia-smi: poll: ") + std::strerror(errno));
      break;
    }
    if (fds[1].revents != 0) return;  // stop()
    const ssize_t got = ::read(child_->output_fd(), buf, sizeof buf);
    // The stamp first, before any parsing: the moment the reading arrived.
    const core::Nanos t = clock_.now();
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      fail(std::string("nvidia-smi: read: ") + std::strerror(errno));
      break;
    }
    if (got == 0) {
      if (!pending.empty() && !overlong) {
        if (auto s = take_line(pending, t)) add({std::move(*s)});
      }
      break;
    }
    std::vector<telemetry::GpuSample> batch;
    std::string_view data(buf, static_cast<std::size_t>(got));
    while (!data.empty()) {
      const auto nl = data.find('\n');
      const std::string_view piece = data.substr(0, nl);
      if (!overlong) pending.append(piece);
      if (pending.size() > kMaxLine) {
        if (!overlong) fail(fmt::format("nvidia-smi: a line longer than {} bytes", kMaxLine));
        overlong = true;
        pending.clear();
      }
      if (nl == std::string_view::npos) break;
      if (!overlong) {
        if (auto s = take_line(pending, t)) batch.push_back(std::move(*s));
      }
      pending.clear();
      overlong = false;
      data.remove_prefix(nl + 1);
    }
    add(std::move(batch));
  }
  // nvidia-smi ended on its own (no driver, no GPU, killed by someone else).
  std::string why = "nvidia-smi closed its output";
  for (int i = 0; i < 50 && !child_->exited(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (const auto status = child_->terminate(std::chrono::milliseconds(0))) {
    why = WIFEXITED(*status) ? fmt::format("nvidia-smi exited with status {}", WEXITSTATUS(*status))
                             : "nvidia-smi was ended by a signal";
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ended_ = true;
    if (!stopping_) {
      ++info_.failed_samples;
      if (info_.first_error.empty()) info_.first_error = why;
    }
  }
  changed_.notify_all();
}

void GpuSampler::scrape_loop() {
  const auto period = std::chrono::duration<double>(info_.interval_s);
  auto next = std::chrono::steady_clock::now();
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (changed_.wait_until(lock, next, [this] { return stopping_; })) return;
    }
    // A scrape slower than the interval is a failed sample, never a late one piling up.
    const auto got = client::http_get(info_.url, {}, std::clamp(info_.interval_s, 1.0, 10.0), get_);
    const core::Nanos t = clock_.now();
    if (!got.transport_ok) {
      fail("dcgm: " + got.error);
    } else if (got.status != 200) {
      fail(fmt::format("dcgm: {} answered HTTP {}", info_.url, got.status));
    } else {
      try {
        auto batch = telemetry::gpu_samples_from_dcgm(telemetry::parse_exposition(got.body), t);
        if (batch.empty())
          fail("dcgm: " + info_.url + " has no DCGM_FI_DEV_* series with a gpu label");
        add(std::move(batch));
      } catch (const telemetry::ParseError& e) {
        fail(std::string("dcgm: ") + e.what());
      }
    }
    next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;  // skip the ticks a slow scrape missed
  }
}

bool GpuSampler::wait_for_sample_after(core::Nanos t, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  // A DCGM scrape either has every GPU or failed: a first one that failed ends the first wait.
  // nvidia-smi may print a line that is not a reading before its first one.
  const bool dcgm_first = t == core::kNever && !child_;
  return changed_.wait_for(lock, timeout,
                           [&] {
                             if (!samples_.empty() && samples_.back().t > t) return true;
                             return stopping_ || ended_ || (dcgm_first && info_.failed_samples > 0);
                           }) &&
         !samples_.empty() && samples_.back().t > t;
}

void GpuSampler::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  changed_.notify_all();
  if (wake_fds_[1] >= 0) {
    const char byte = 1;
    [[maybe_unused]] const ssize_t ignored = ::write(wake_fds_[1], &byte, 1);
  }
  if (thread_.joinable()) thread_.join();
  if (child_) child_->terminate();
}

std::vector<telemetry::GpuSample> GpuSampler::samples() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<telemetry::GpuSample> out = samples_;
  std::stable_sort(
      out.begin(), out.end(),
      [](const telemetry::GpuSample& a, const telemetry::GpuSample& b) { return a.t < b.t; });
  return out;
}

telemetry::GpuSamplerInfo GpuSampler::info() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return info_;
}

}  // namespace tokenbench::collect
