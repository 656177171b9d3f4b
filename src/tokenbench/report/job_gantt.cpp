#include "tokenbench/report/job_gantt.h"

#include <algorithm>
#include <cmath>

#include "tokenbench/report/html_report.h"

namespace tokenbench::report {
namespace {

using nlohmann::json;

json ms_since(core::Nanos t, core::Nanos origin) {
  return t == core::kNever ? json() : json(std::round(static_cast<double>(t - origin) / 1e3) / 1e3);
}

}  // namespace

void JobGanttBuilder::add(const core::RequestRecord& r) {
  if (r.job.job < 0 || r.phase != core::Phase::kMeasure || r.retried) return;
  if (r.job.job % stride_ != 0) return;
  Job& job = kept_[r.job.job];
  job.name = r.job.name;
  job.calls.push_back(Call{r.job.call, r.job.depth, r.sent, r.first_token, r.done, r.ok()});
  while (kept_.size() > 2 * kGanttJobs) {
    stride_ *= 2;
    for (auto it = kept_.begin(); it != kept_.end();) {
      it = it->first % stride_ != 0 ? kept_.erase(it) : std::next(it);
    }
  }
}

json JobGanttBuilder::jobs() const {
  json out = json::array();
  std::vector<const std::pair<const std::int64_t, Job>*> kept;
  for (const auto& entry : kept_) kept.push_back(&entry);
  for (const std::size_t k : even_sample(kept.size(), kGanttJobs)) {
    const auto& [n, job] = *kept[k];
    std::vector<const Call*> calls;
    core::Nanos origin = core::kNever;
    for (const Call& c : job.calls) {
      calls.push_back(&c);
      if (c.sent != core::kNever && (origin == core::kNever || c.sent < origin)) origin = c.sent;
    }
    std::stable_sort(calls.begin(), calls.end(),
                     [](const Call* a, const Call* b) { return a->sent < b->sent; });
    json rows = json::array();
    for (const Call* c : calls) {
      rows.push_back({{"call", c->id},
                      {"depth", c->depth},
                      {"sent", ms_since(c->sent, origin)},
                      {"first_token", ms_since(c->first_token, origin)},
                      {"done", ms_since(c->done, origin)},
                      {"ok", c->ok}});
    }
    out.push_back({{"n", n}, {"name", job.name}, {"calls", std::move(rows)}});
  }
  return out;
}

}  // namespace tokenbench::report
