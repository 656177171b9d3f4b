#include "tokenbench/distributed/merge.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <tuple>

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

int position_of(const Session& session, int rank) {
  const auto& list = session.members();
  return static_cast<int>(std::find(list.begin(), list.end(), rank) - list.begin());
}

// What one merge reads, beside the shares.
struct Level {
  const Session& session;
  std::size_t part_count;
  const std::vector<std::string>& part_dirs;  // where a member flushed its records
  bool zstd;
};

// Every rank's share on the leader's clock, with its row's fixed fields.
struct Share {
  json row;
  std::vector<std::vector<core::RequestRecord>> parts;
  std::vector<std::vector<core::CpuSample>> cpu;
};

// What the shares say beside their records: what is missing, and the widest clock uncertainty.
struct Account {
  json missing = json::array();
  double widest_uncertainty_ms = 0;
};

// Widens the merged measure phase to hold [start, end] (kNever: that edge is unknown).
void widen(Merged& m, core::Nanos start, core::Nanos end) {
  if (start != core::kNever) {
    m.measure_start = m.measure_start == core::kNever ? start : std::min(m.measure_start, start);
  }
  if (end != core::kNever) m.measure_end = std::max(m.measure_end, end);
}

// The leader's share: already on its clock.
Share leader_share(const Session& session, LeaderShare& own, Merged& m) {
  Share share;
  share.row = {{"rank", 0},
               {"host", session.host()},
               {"offset_ms", 0.0},
               {"uncertainty_ms", 0.0},
               {"status", own.canceled ? "canceled" : "ok"}};
  widen(m, own.measure_start, own.measure_end);
  share.parts = std::move(own.parts);
  share.cpu = std::move(own.cpu);
  return share;
}

// Places rank k on the leader's clock: its stamp s is, on the leader's run clock, s + the shift
// returned; nullopt when its origin or clock offset is unknown. Puts the offset in its row.
std::optional<core::Nanos> place_rank(const Session& session, int k, Share& share, Account& acc) {
  const std::int64_t leader_origin = session.origins().count(0) ? session.origins().at(0) : 0;
  const auto offset = session.offsets().find(k);
  const auto origin = session.origins().find(k);
  if (offset == session.offsets().end() || origin == session.origins().end()) return std::nullopt;
  const double uncertainty = ms(static_cast<double>(offset->second.uncertainty_ns));
  share.row["offset_ms"] = ms(static_cast<double>(offset->second.offset_ns));
  share.row["uncertainty_ms"] = uncertainty;
  acc.widest_uncertainty_ms = std::max(acc.widest_uncertainty_ms, uncertainty);
  return origin->second - offset->second.offset_ns - leader_origin;
}

// A member that sent no records: what it flushed to a shared directory, if visible here (only
// when it is placed on the leader's clock), into its share. Returns the statement of what is
// missing.
std::string recover_flushed(const Level& level, const RankReport& rep, bool placed, Share& share) {
  const int k = rep.rank;
  std::int64_t recovered = 0;
  std::string from;
  for (std::size_t p = 0; p < level.part_dirs.size() && p < level.part_count && placed; ++p) {
    const std::string path = level.part_dirs[p] + "/" + rank_records_file(k, level.zstd);
    if (!std::filesystem::exists(path)) continue;
    try {
      share.parts[p] = records::read_records_jsonl(path);
      recovered += static_cast<std::int64_t>(share.parts[p].size());
      from = path;
    } catch (const std::exception&) {
      // A file it left unreadable: its share stays missing, as the statement says.
    }
  }
  const std::string what = share_of(position_of(level.session, k), level.session.members().size());
  return recovered > 0 ? fmt::format(
                             "rank {} ({}) {}. {} of its records were read from {} (flushed once "
                             "a second); the rest of its share ({}) is missing",
                             k, rep.host, core::without_full_stop(rep.error), recovered, from, what)
                       : fmt::format("rank {} ({}) {}. Its share ({}) is missing", k, rep.host,
                                     core::without_full_stop(rep.error), what);
}

// A member's share from its report (or, when none came, from what it flushed), moved onto the
// leader's clock.
Share member_share(const Level& level, RankReport& rep, Merged& m, Account& acc) {
  const int k = rep.rank;
  Share share;
  share.parts.resize(level.part_count);
  share.row = {{"rank", k}, {"host", rep.host}, {"status", rep.canceled ? "canceled" : "ok"}};
  const std::optional<core::Nanos> placed = place_rank(level.session, k, share, acc);
  const core::Nanos shift = placed.value_or(0);
  if (rep.error.empty()) {
    for (std::size_t p = 0; p < rep.parts.size() && p < level.part_count; ++p) {
      share.parts[p] = parse_result_lines(rep.parts[p], k);
    }
    widen(m, rep.measure_start == core::kNever ? core::kNever : rep.measure_start + shift,
          rep.measure_end == core::kNever ? core::kNever : rep.measure_end + shift);
  } else {
    share.row["status"] = rep.lost ? "lost" : "failed";
    share.row["why"] = rep.error;
    acc.missing.push_back(recover_flushed(level, rep, placed.has_value(), share));
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
  return share;
}

// The rows of the ranks that sent no share (absent from the start, their hello said why, or lost
// before this measurement), each with its statement in `missing`.
json absent_rows(const Session& session, const std::vector<Share>& shares, json& missing) {
  const std::size_t members = session.members().size();
  json rows = json::array();
  for (const auto& a : session.absences()) {
    const bool reported = std::any_of(shares.begin(), shares.end(),
                                      [&a](const Share& s) { return s.row["rank"] == a.rank; });
    if (reported) continue;
    rows.push_back({{"rank", a.rank}, {"host", a.host}, {"status", "absent"}, {"why", a.why}});
    missing.push_back(fmt::format(
        "rank {} ({}) took no part: {}. The schedule was shared among the other {} rank{}", a.rank,
        a.host, core::without_full_stop(a.why), members, members == 1 ? "" : "s"));
  }
  return rows;
}

// Part p's ranks table (tokenbench.distributed): each rank's requests there and its client
// health, beside the absent ranks' rows and what is missing.
json ranks_table(const Session& session, const std::vector<Share>& shares, std::size_t p,
                 const json& absent, const Account& acc, bool partial) {
  json rows = absent;
  for (const auto& share : shares) {
    json row = rank_health({share.parts[p]}, share.cpu);
    row.update(share.row);
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(),
            [](const json& a, const json& b) { return a["rank"] < b["rank"]; });
  json d;
  d["ranks"] = session.size();
  d["members"] = session.members().size();
  d["share_rule"] =
      "the schedule's prompt i (with its request to each target compared) is sent by the "
      "member at position i mod members";
  d["clock_uncertainty_ms"] = acc.widest_uncertainty_ms;
  d["per_rank"] = std::move(rows);
  d["missing"] = acc.missing;
  d["partial"] = partial;
  return d;
}

// Every share's records and CPU readings into `m`, each part in the order requests ended (as a
// single process writes them).
void gather(std::vector<Share>& shares, Merged& m) {
  for (auto& share : shares) {
    for (std::size_t p = 0; p < m.parts.size(); ++p) {
      for (auto& r : share.parts[p]) m.parts[p].push_back(std::move(r));
    }
    for (auto& w : share.cpu) m.cpu.push_back(std::move(w));
  }
  for (auto& part : m.parts) {
    std::sort(part.begin(), part.end(), [](const auto& a, const auto& b) {
      return std::tie(a.done, a.id, a.attempt) < std::tie(b.done, b.id, b.attempt);
    });
  }
}

}  // namespace

Merged merge_level(const Session& session, LeaderShare own, std::vector<RankReport> reports,
                   const std::vector<std::string>& part_dirs, bool zstd) {
  const Level level{session, own.parts.size(), part_dirs, zstd};
  Merged m;
  m.parts.resize(level.part_count);
  m.canceled = own.canceled;
  Account acc;
  std::vector<Share> shares;
  shares.push_back(leader_share(session, own, m));
  for (auto& rep : reports) shares.push_back(member_share(level, rep, m, acc));
  const json absent = absent_rows(session, shares, acc.missing);
  for (std::size_t p = 0; p < level.part_count; ++p) {
    m.distributed.push_back(ranks_table(session, shares, p, absent, acc, m.partial));
  }
  gather(shares, m);
  return m;
}

}  // namespace tokenbench::distributed
