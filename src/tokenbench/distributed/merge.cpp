#include "tokenbench/distributed/merge.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>

#include "tokenbench/core/text.h"
#include "tokenbench/metrics/checks.h"
#include "tokenbench/metrics/percentile.h"
#include "tokenbench/metrics/request_metrics.h"
#include "tokenbench/records/records_io.h"

namespace tokenbench::distributed {

using json = nlohmann::json;

void shift_record(core::RequestRecord& r, core::Nanos delta) {
  const auto move = [delta](core::Nanos& t) {
    if (t != core::kNever) t += delta;
  };
  for (core::Nanos* t :
       {&r.intended, &r.scheduled, &r.sent, &r.headers, &r.first_token, &r.last_token, &r.done,
        &r.first_reasoning, &r.first_answer, &r.connected}) {
    move(*t);
  }
  for (auto& c : r.chunks) move(c.t);
}

std::string rank_records_file(int rank, bool zstd) {
  return fmt::format("requests.rank-{}.jsonl{}", rank, zstd ? ".zst" : "");
}

namespace {

// A rank's result, whole: checked line by line as a requests.jsonl file is.
std::vector<core::RequestRecord> parse_result_lines(const std::string& text, int rank) {
  const std::string name = fmt::format("rank {}'s result", rank);
  records::RecordsReadReport read;
  auto records = records::parse_records_jsonl(text, name, &read);
  if (read.skipped_lines > 0) throw std::runtime_error(read.skipped_reason);
  return records;
}

double ms(double ns) { return ns / 1e6; }

json number_or_null(double v) { return metrics::is_defined(v) ? json(v) : json(nullptr); }

// The rank's measured requests and client health, for the ranks table.
json rank_health(const std::vector<std::vector<core::RequestRecord>>& parts,
                 const std::vector<std::vector<core::CpuSample>>& cpu) {
  std::int64_t requests = 0, completed = 0, failed = 0, output_tokens = 0;
  std::vector<double> lag;
  for (const auto& part : parts) {
    for (const auto& r : part) {
      if (r.phase != core::Phase::kMeasure || r.retried) continue;
      ++requests;
      if (r.ok()) {
        ++completed;
        output_tokens += r.output_tokens;
      } else {
        ++failed;
      }
      if (const auto q = metrics::queue_time_ms(r)) lag.push_back(*q);
    }
  }
  json h;
  h["requests"] = requests;
  h["completed"] = completed;
  h["failed"] = failed;
  h["output_tokens"] = output_tokens;
  std::sort(lag.begin(), lag.end());
  h["send_lag_p50_ms"] = number_or_null(metrics::percentile_sorted(lag, 50));
  h["send_lag_p99_ms"] = number_or_null(metrics::percentile_sorted(lag, 99));
  const metrics::ClientHealth health = metrics::client_health(cpu);
  double peak = 0;
  for (const auto& w : health.workers) peak = std::max(peak, w.busy_peak_pct);
  h["workers"] = health.workers.size();
  h["cpu_busy_peak_pct"] = health.workers.empty() ? json(nullptr) : json(peak);
  h["saturated"] = health.saturated;
  return h;
}

std::string share_of(int position, std::size_t members) {
  return fmt::format("the schedule's prompts i with i mod {} = {}", members, position);
}

}  // namespace

Merged merge_level(const Session& session, LeaderShare own, std::vector<RankReport> reports,
                   const std::vector<std::string>& part_dirs, bool zstd) {
  Merged m;
  const std::size_t part_count = own.parts.size();
  m.parts.resize(part_count);
  m.canceled = own.canceled;
  const std::int64_t leader_origin = session.origins().count(0) ? session.origins().at(0) : 0;
  const std::size_t members = session.members().size();
  const auto position_of = [&session](int rank) {
    const auto& list = session.members();
    return static_cast<int>(std::find(list.begin(), list.end(), rank) - list.begin());
  };
  const auto widen = [&m](core::Nanos start, core::Nanos end) {
    if (start != core::kNever) {
      m.measure_start = m.measure_start == core::kNever ? start : std::min(m.measure_start, start);
    }
    if (end != core::kNever) m.measure_end = std::max(m.measure_end, end);
  };

  // Every rank's share on the leader's clock, with its row's fixed fields.
  struct Share {
    json row;
    std::vector<std::vector<core::RequestRecord>> parts;
    std::vector<std::vector<core::CpuSample>> cpu;
  };
  std::vector<Share> shares;
  json missing = json::array();
  double widest_uncertainty_ms = 0;
  {
    Share own_share;  // the leader's: already on its clock
    own_share.row = {{"rank", 0},
                     {"host", session.host()},
                     {"offset_ms", 0.0},
                     {"uncertainty_ms", 0.0},
                     {"status", own.canceled ? "canceled" : "ok"}};
    widen(own.measure_start, own.measure_end);
    own_share.parts = std::move(own.parts);
    own_share.cpu = std::move(own.cpu);
    shares.push_back(std::move(own_share));
  }
  for (auto& rep : reports) {
    const int k = rep.rank;
    Share share;
    share.parts.resize(part_count);
    share.row = {{"rank", k}, {"host", rep.host}, {"status", rep.canceled ? "canceled" : "ok"}};
    const auto offset = session.offsets().find(k);
    const auto origin = session.origins().find(k);
    const bool placed = offset != session.offsets().end() && origin != session.origins().end();
    // Rank k's run-clock stamp s is, on the leader's run clock, s + shift.
    const core::Nanos shift =
        placed ? origin->second - offset->second.offset_ns - leader_origin : 0;
    if (placed) {
      const double uncertainty = ms(static_cast<double>(offset->second.uncertainty_ns));
      share.row["offset_ms"] = ms(static_cast<double>(offset->second.offset_ns));
      share.row["uncertainty_ms"] = uncertainty;
      widest_uncertainty_ms = std::max(widest_uncertainty_ms, uncertainty);
    }
    if (rep.error.empty()) {
      for (std::size_t p = 0; p < rep.parts.size() && p < part_count; ++p) {
        share.parts[p] = parse_result_lines(rep.parts[p], k);
      }
      widen(rep.measure_start == core::kNever ? core::kNever : rep.measure_start + shift,
            rep.measure_end == core::kNever ? core::kNever : rep.measure_end + shift);
    } else {
      // No records came: what it flushed to a shared directory, if visible here.
      share.row["status"] = rep.lost ? "lost" : "failed";
      share.row["why"] = rep.error;
      std::int64_t recovered = 0;
      std::string from;
      for (std::size_t p = 0; p < part_dirs.size() && p < part_count && placed; ++p) {
        const std::string path = part_dirs[p] + "/" + rank_records_file(k, zstd);
        if (!std::filesystem::exists(path)) continue;
        try {
          share.parts[p] = records::read_records_jsonl(path);
          recovered += static_cast<std::int64_t>(share.parts[p].size());
          from = path;
        } catch (const std::exception&) {
          // A file it left unreadable: its share stays missing, as the statement says.
        }
      }
      const std::string what = share_of(position_of(k), members);
      missing.push_back(
          recovered > 0
              ? fmt::format("rank {} ({}) {}. {} of its records were read from {} (flushed once "
                            "a second); the rest of its share ({}) is missing",
                            k, rep.host, core::without_full_stop(rep.error), recovered, from, what)
              : fmt::format("rank {} ({}) {}. Its share ({}) is missing", k, rep.host,
                            core::without_full_stop(rep.error), what));
      m.partial = true;
    }
    for (auto& part : share.parts) {
      for (auto& r : part) shift_record(r, shift);
    }
    for (auto& w : rep.cpu) {
      for (auto& sample : w) sample.t += shift;
    }
    share.cpu = std::move(rep.cpu);
    m.canceled = m.canceled || rep.canceled;
    shares.push_back(std::move(share));
  }
  json absent_rows = json::array();
  for (const auto& a : session.absences()) {
    const bool reported = std::any_of(shares.begin(), shares.end(),
                                      [&a](const Share& s) { return s.row["rank"] == a.rank; });
    if (reported) continue;
    // Absent from the start (its hello said why), or lost before this measurement.
    absent_rows.push_back(
        {{"rank", a.rank}, {"host", a.host}, {"status", "absent"}, {"why", a.why}});
    missing.push_back(fmt::format(
        "rank {} ({}) took no part: {}. The schedule was shared among the other {} rank{}", a.rank,
        a.host, core::without_full_stop(a.why), members, members == 1 ? "" : "s"));
  }

  // One ranks table per part (target): each rank's requests there, and its client health.
  for (std::size_t p = 0; p < part_count; ++p) {
    json rows = absent_rows;
    for (const auto& share : shares) {
      json row = rank_health({share.parts[p]}, share.cpu);
      row.update(share.row);
      rows.push_back(std::move(row));
    }
    std::sort(rows.begin(), rows.end(),
              [](const json& a, const json& b) { return a["rank"] < b["rank"]; });
    json d;
    d["ranks"] = session.size();
    d["members"] = members;
    d["share_rule"] =
        "the schedule's prompt i (with its request to each target compared) is sent by the "
        "member at position i mod members";
    d["clock_uncertainty_ms"] = widest_uncertainty_ms;
    d["per_rank"] = std::move(rows);
    d["missing"] = missing;
    d["partial"] = m.partial;
    m.distributed.push_back(std::move(d));
  }
  for (auto& share : shares) {
    for (std::size_t p = 0; p < part_count; ++p) {
      for (auto& r : share.parts[p]) m.parts[p].push_back(std::move(r));
    }
    for (auto& w : share.cpu) m.cpu.push_back(std::move(w));
  }
  for (auto& part : m.parts) {
    // As a single process writes them: in the order requests ended.
    std::sort(part.begin(), part.end(), [](const auto& a, const auto& b) {
      return std::tie(a.done, a.id, a.attempt) < std::tie(b.done, b.id, b.attempt);
    });
  }
  return m;
}

}  // namespace tokenbench::distributed
