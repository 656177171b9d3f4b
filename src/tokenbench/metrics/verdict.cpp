#include "tokenbench/metrics/verdict.h"

#include <fmt/format.h>

#include <algorithm>

namespace tokenbench::metrics {
namespace {

bool above(double v, double bound) { return is_defined(v) && is_defined(bound) && v > bound; }

std::string ms(double v) { return is_defined(v) ? fmt::format("{:.3g} ms", v) : "-"; }

// One ITL: the yardstick of a late read.
double one_itl_ms(const VerdictInputs& in) {
  if (is_defined(in.itl_p50_ms)) return std::max(in.itl_p50_ms, kReadLagFloorMs);
  if (is_defined(in.ttft_p50_ms)) return std::max(in.ttft_p50_ms / 10, kReadLagFloorMs);
  return kUndefined;
}

// The client's evidence against itself; empty when it kept up.
std::vector<std::string> client_evidence(const VerdictInputs& in) {
  std::vector<std::string> e;
  const double itl = one_itl_ms(in);
  if (in.read_lag.measured && above(in.read_lag.overall.p99_ms, itl)) {
    e.push_back(fmt::format(
        "read lag p99 {} over one ITL ({}){}", ms(in.read_lag.overall.p99_ms), ms(itl),
        is_defined(in.read_lag.late_chunk_share)
            ? fmt::format(", {:.1f}% of chunks read late", 100 * in.read_lag.late_chunk_share)
            : ""));
  }
  if (above(in.cpu_peak_pct, kSaturatedBusyPct - 1e-9)) {
    e.push_back(fmt::format("a worker on the CPU {:.0f}% of its busiest second", in.cpu_peak_pct));
  }
  if (above(in.cpu_wait_peak_pct, kCpuWaitPct - 1e-9)) {
    e.push_back(
        fmt::format("a worker waited for a CPU {:.0f}% of its worst second", in.cpu_wait_peak_pct));
  }
  const double send_bound =
      std::max(kSendLagBoundMs, is_defined(in.ttft_p50_ms) ? in.ttft_p50_ms / 10 : 0.0);
  if (above(in.send_lag_p99_ms, send_bound)) {
    e.push_back(fmt::format("send lag p99 {} over {}", ms(in.send_lag_p99_ms), ms(send_bound)));
  }
  // Corroboration, never a reason alone (a server may write several events at once): the
  // chunks the late reads returned merged.
  const bool said = !e.empty() && e.front().rfind("read lag", 0) == 0;
  if (!e.empty() && !said && above(in.read_lag.late_chunk_share, kLateChunkShare)) {
    e.push_back(fmt::format("{:.1f}% of chunks read late", 100 * in.read_lag.late_chunk_share));
  }
  return e;
}

// What to change, the likeliest first: a worker held back by other processes needs a core, a
// busy one company.
std::string remedy(const VerdictInputs& in) {
  const std::string workers =
      fmt::format("more worker threads (--workers {})", std::max(2, 2 * in.workers));
  const std::string core = "a core of its own (taskset, a less loaded machine)";
  const bool starved = above(in.cpu_wait_peak_pct, kCpuWaitPct - 1e-9);
  return fmt::format(
      "give the client {}, {}, or split the load over MPI ranks (mpirun -np N "
      "tokenbench run ...)",
      starved ? core : workers, starved ? workers : core);
}

bool queued(const VerdictInputs& in) {
  return above(in.queue_mean_ms, kQueueShare * in.ttft_mean_ms) ||
         (is_defined(in.waiting_mean) && in.waiting_mean >= kWaitingBound);
}

bool long_tail(double p99, double p50) { return above(p99, kLongTailRatio * p50) && p50 > 0; }

std::string client_on_time(const VerdictInputs& in) {
  return in.read_lag.measured ? fmt::format("the client read on time (read lag p99 {})",
                                            ms(in.read_lag.overall.p99_ms))
                              : "the client kept up (read lag not measured)";
}

}  // namespace

VerdictInputs verdict_inputs(const Summary& summary, const Checks& checks) {
  VerdictInputs in;
  in.read_lag = checks.read_lag;
  in.itl_p50_ms = summary.itl_ms.at(50);
  in.itl_p99_ms = summary.itl_ms.at(99);
  in.ttft_p50_ms = summary.ttft_ms.at(50);
  in.ttft_p99_ms = summary.ttft_ms.at(99);
  in.ttft_mean_ms = summary.ttft_ms.mean;
  in.send_lag_p99_ms = checks.offered.send_lag_p99_ms;
  if (checks.client) {
    in.workers = static_cast<int>(checks.client->workers.size());
    const auto most = [](double& into, double v) {
      if (is_defined(v)) into = is_defined(into) ? std::max(into, v) : v;
    };
    for (const auto& w : checks.client->workers) {
      most(in.cpu_peak_pct, w.busy_peak_pct);
      most(in.cpu_wait_peak_pct, w.wait_peak_pct);
    }
  }
  return in;
}

Verdict judge(const VerdictInputs& in) {
  Verdict v;
  if (auto e = client_evidence(in); !e.empty()) {
    v.bound = "client-bound";
    v.evidence = std::move(e);
    v.remedy = remedy(in);
    return v;
  }
  if (in.server && queued(in)) {
    v.bound = "server-bound";
    v.kind = "queueing";
    v.evidence.push_back(fmt::format("server queue time mean {} of TTFT mean {} ({:.0f}%)",
                                     ms(in.queue_mean_ms), ms(in.ttft_mean_ms),
                                     is_defined(in.queue_mean_ms) && in.ttft_mean_ms > 0
                                         ? 100 * in.queue_mean_ms / in.ttft_mean_ms
                                         : 0.0));
    // The waiting gauge, where the scrapes saw requests waiting (a short queue time falls
    // between scrapes); the running batch beside it.
    if (above(in.waiting_max, 0)) {
      v.evidence.push_back(fmt::format(
          "{:.1f} requests waiting on average (max {:.0f}), {:.1f} running", in.waiting_mean,
          in.waiting_max, is_defined(in.running_mean) ? in.running_mean : 0.0));
    } else if (is_defined(in.running_mean)) {
      v.evidence.push_back(fmt::format("{:.1f} running on average", in.running_mean));
    }
    v.evidence.push_back(client_on_time(in));
    return v;
  }
  if (in.server &&
      above(in.ttft_overhead_ms, std::max(kOverheadMinMs, kOverheadShare * in.ttft_mean_ms))) {
    v.bound = "network or framework";
    v.evidence.push_back(fmt::format(
        "{} of TTFT mean {} ({:.0f}%) is outside the server's queue and prefill",
        ms(in.ttft_overhead_ms), ms(in.ttft_mean_ms), 100 * in.ttft_overhead_ms / in.ttft_mean_ms));
    v.evidence.push_back(client_on_time(in));
    return v;
  }
  const bool ttft_tail = long_tail(in.ttft_p99_ms, in.ttft_p50_ms);
  const bool itl_tail = long_tail(in.itl_p99_ms, in.itl_p50_ms);
  if (ttft_tail || itl_tail) {
    v.bound = "server-bound";
    v.kind = in.server ? "compute" : "queueing or compute";
    v.evidence.push_back(ttft_tail
                             ? fmt::format("TTFT p99 {} is {:.1f}x its p50", ms(in.ttft_p99_ms),
                                           in.ttft_p99_ms / in.ttft_p50_ms)
                             : fmt::format("ITL p99 {} is {:.1f}x its p50", ms(in.itl_p99_ms),
                                           in.itl_p99_ms / in.itl_p50_ms));
    if (in.server) {
      v.evidence.push_back(fmt::format("the server's own TTFT mean {} and ITL mean {}, no queueing",
                                       ms(in.server_ttft_mean_ms), ms(in.server_itl_mean_ms)));
    } else {
      v.evidence.push_back("no server telemetry to tell queueing from compute");
    }
    v.evidence.push_back(client_on_time(in));
    return v;
  }
  v.bound = "healthy";
  v.evidence.push_back(client_on_time(in));
  v.evidence.push_back(
      fmt::format("TTFT p99/p50 {}", is_defined(in.ttft_p99_ms) && in.ttft_p50_ms > 0
                                         ? fmt::format("{:.1f}x", in.ttft_p99_ms / in.ttft_p50_ms)
                                         : std::string("-")));
  if (in.server) v.evidence.push_back("no queueing at the server");
  return v;
}

std::string Verdict::line() const {
  std::string out = bound;
  if (!kind.empty()) out += " (" + kind + ")";
  std::string joined;
  for (const auto& e : evidence) joined += (joined.empty() ? "" : "; ") + e;
  if (!joined.empty()) out += ": " + joined;
  if (!remedy.empty()) out += ". Remedy: " + remedy;
  return out;
}

nlohmann::json verdict_to_json(const Verdict& v) {
  return {{"bound", v.bound},
          {"kind", v.kind.empty() ? nlohmann::json() : nlohmann::json(v.kind)},
          {"evidence", v.evidence},
          {"remedy", v.remedy.empty() ? nlohmann::json() : nlohmann::json(v.remedy)},
          {"line", v.line()}};
}

}  // namespace tokenbench::metrics
