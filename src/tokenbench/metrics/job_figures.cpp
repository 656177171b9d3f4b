#include "tokenbench/metrics/job_figures.h"

#include <algorithm>
#include <cctype>

#include "tokenbench/metrics/request_metrics.h"

namespace tokenbench::metrics {
namespace {

// "c2" before "c10", "main.9" before "main.10": runs of digits compare as numbers.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      const std::size_t si = i, sj = j;
      while (i < a.size() && a[i] == '0') ++i;
      while (j < b.size() && b[j] == '0') ++j;
      const std::size_t di = i, dj = j;
      while (i < a.size() && std::isdigit(static_cast<unsigned char>(a[i]))) ++i;
      while (j < b.size() && std::isdigit(static_cast<unsigned char>(b[j]))) ++j;
      if (i - di != j - dj) return i - di < j - dj;
      if (const int c = a.compare(di, i - di, b, dj, j - dj); c != 0) return c < 0;
      if (i - si != j - sj) return i - si < j - sj;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

double ms(core::Nanos from, core::Nanos to) { return static_cast<double>(to - from) / 1e6; }

template <typename Group>
CallGroupFigures group_figures(std::string key, const Group& g, std::span<const double> ps) {
  return CallGroupFigures{std::move(key), g.completed, make_distribution(g.ttft, ps),
                          make_distribution(g.tpot, ps), g.cache};
}

}  // namespace

JobsBuilder::JobsBuilder(std::span<const double> percentiles, std::size_t exact_limit,
                         std::optional<double> slo_job_ms)
    : percentiles_(percentiles.begin(), percentiles.end()),
      exact_limit_(exact_limit),
      slo_job_ms_(slo_job_ms),
      job_ms_(exact_limit),
      final_ttft_ms_(exact_limit) {}

void JobsBuilder::add_to(Group& group, const core::RequestRecord& record) {
  ++group.completed;
  group.cache.add(record);
  if (const auto v = ttft_ms(record)) group.ttft.add(*v);
  if (const auto v = tpot_ms(record)) group.tpot.add(*v);
}

void JobsBuilder::add(const core::RequestRecord& r) {
  if (r.job.job < 0 || r.phase != core::Phase::kMeasure || r.retried) return;
  if (r.ok()) {
    add_to(by_depth_.try_emplace(r.job.depth, exact_limit_).first->second, r);
    auto it = by_call_.find(r.job.call);
    if (it == by_call_.end() && by_call_.size() < kMaxCallIds) {
      it = by_call_.try_emplace(r.job.call, exact_limit_).first;
    }
    if (it != by_call_.end()) {
      add_to(it->second, r);
    } else {
      capped_ = true;
    }
  }
  auto& calls = pending_[r.job.job];
  calls.push_back(Call{r.job.call, r.job.after, r.sent, r.first_token, r.done, r.job.delay_ms,
                       r.ok(), r.prompt_tokens, r.output_tokens,
                       std::max<std::int64_t>(0, r.cached_tokens)});
  if (static_cast<std::int32_t>(calls.size()) < r.job.calls) return;
  close(calls);
  pending_.erase(r.job.job);
}

void JobsBuilder::close(const std::vector<Call>& calls) {
  if (!std::all_of(calls.begin(), calls.end(), [](const Call& c) { return c.ok; })) {
    ++failed_;
    return;
  }
  core::Nanos start = core::kNever;
  const Call* last = nullptr;  // the final call: no call waits for it; the last of them to end
  for (const Call& c : calls) {
    if (c.sent != core::kNever && (start == core::kNever || c.sent < start)) start = c.sent;
    const bool waited_for = std::any_of(calls.begin(), calls.end(), [&](const Call& other) {
      return std::find(other.after.begin(), other.after.end(), c.id) != other.after.end();
    });
    if (!waited_for && (last == nullptr || c.done > last->done)) last = &c;
  }
  if (start == core::kNever || last == nullptr || last->done == core::kNever) return;
  ++completed_;
  const double latency = ms(start, last->done);
  job_ms_.add(latency);
  latency_sum_ms_ += latency;
  if (last->first_token != core::kNever) final_ttft_ms_.add(ms(start, last->first_token));
  if (slo_job_ms_ && latency <= *slo_job_ms_) ++good_;
  calls_ += static_cast<std::int64_t>(calls.size());
  for (const Call& c : calls) {
    input_ += c.input;
    output_ += c.output;
    cached_ += c.cached;
  }
  // The critical path, walked back from the final call through the dependency that ended last.
  for (const Call* c = last; c != nullptr;) {
    llm_ms_ += ms(c->sent, c->done);
    const Call* before = nullptr;
    for (const std::string& id : c->after) {
      for (const Call& d : calls) {
        if (d.id == id && (before == nullptr || d.done > before->done)) before = &d;
      }
    }
    if (before != nullptr) delay_ms_ += c->delay_ms;
    c = before;
  }
}

std::optional<JobFigures> JobsBuilder::finish(double duration_s) const {
  if (completed_ == 0 && pending_.empty() && failed_ == 0) return std::nullopt;
  JobFigures f;
  f.completed = completed_;
  f.failed = failed_;
  for (const auto& [job, calls] : pending_) {
    const bool failed =
        std::any_of(calls.begin(), calls.end(), [](const Call& c) { return !c.ok; });
    (failed ? f.failed : f.incomplete) += 1;
  }
  f.jobs = f.completed + f.failed + f.incomplete;
  f.job_ms = make_distribution(job_ms_, percentiles_);
  f.final_ttft_ms = make_distribution(final_ttft_ms_, percentiles_);
  const bool timed = is_defined(duration_s) && duration_s > 0;
  if (timed) {
    f.jobs_per_s = static_cast<double>(completed_) / duration_s;
    f.mean_jobs_in_progress = latency_sum_ms_ / 1e3 / duration_s;
    if (f.mean_jobs_in_progress > 0) {
      f.jobs_per_hour_per_user = f.jobs_per_s * 3600 / f.mean_jobs_in_progress;
    }
  }
  if (completed_ > 0) {
    const auto n = static_cast<double>(completed_);
    f.mean_calls = static_cast<double>(calls_) / n;
    f.mean_input_tokens = static_cast<double>(input_) / n;
    f.mean_output_tokens = static_cast<double>(output_) / n;
    f.mean_cached_tokens = static_cast<double>(cached_) / n;
    f.mean_critical_llm_ms = llm_ms_ / n;
    f.mean_critical_delay_ms = delay_ms_ / n;
    f.mean_critical_other_ms = (latency_sum_ms_ - llm_ms_ - delay_ms_) / n;
    if (latency_sum_ms_ > 0) f.critical_llm_share = llm_ms_ / latency_sum_ms_;
  }
  f.slo_job_ms = slo_job_ms_;
  if (slo_job_ms_) {
    f.good_jobs = good_;
    if (timed) f.job_goodput = static_cast<double>(good_) / duration_s;
  }
  for (const auto& [depth, g] : by_depth_) {
    f.by_depth.push_back(group_figures(std::to_string(depth), g, percentiles_));
  }
  for (const auto& [id, g] : by_call_) {
    f.by_call.push_back(group_figures(id, g, percentiles_));
  }
  std::sort(f.by_call.begin(), f.by_call.end(),
            [](const CallGroupFigures& a, const CallGroupFigures& b) {
              return natural_less(a.key, b.key);
            });
  f.call_ids_capped = capped_;
  return f;
}

}  // namespace tokenbench::metrics
