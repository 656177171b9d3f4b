#include "tokenbench/distributed/merge.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "tokenbench/core/text.h"
#include "tokenbench/distributed/record_transfer.h"
#include "tokenbench/metrics/checks.h"
#include "tokenbench/metrics/percentile.h"
#include "tokenbench/metrics/request_metrics.h"
#include "tokenbench/metrics/summary_builder.h"
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

double ms(double ns) { return ns / 1e6; }

json number_or_null(double v) { return metrics::is_defined(v) ? json(v) : json(nullptr); }

// A rank's measured requests in one part, counted as they are merged.
struct Tally {
  std::int64_t read = 0;  // records of any phase
  std::int64_t requests = 0, completed = 0, failed = 0, output_tokens = 0;
  metrics::StreamingDistribution send_lag{metrics::kDefaultExactLimit};

  void add(const core::RequestRecord& r) {
    ++read;
    if (r.phase != core::Phase::kMeasure || r.retried) return;
    ++requests;
    if (r.ok()) {
      ++completed;
      output_tokens += r.output_tokens;
    } else {
      ++failed;
    }
    if (const auto q = metrics::queue_time_ms(r)) send_lag.add(*q);
  }
};

// The rank's measured requests and client health, for the ranks table.
json rank_health(const Tally& t, const std::vector<std::vector<core::CpuSample>>& cpu) {
  json h;
  h["requests"] = t.requests;
  h["completed"] = t.completed;
  h["failed"] = t.failed;
  h["output_tokens"] = t.output_tokens;
  h["send_lag_p50_ms"] = number_or_null(t.send_lag.quantile(50));
  h["send_lag_p99_ms"] = number_or_null(t.send_lag.quantile(99));
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
  Session& session;
  std::size_t part_count;
  const std::vector<std::string>& part_dirs;  // where a member flushed its records
  bool zstd;
};

// Where a rank's records come from.
enum class From {
  kFiles,   // files this process reads: the leader's own, or a lost member's flushed ones
  kMember,  // the member, asked for a batch at a time
  kNone,    // nowhere: its share is missing
};

// Every rank's share: where its records come from, the shift onto the leader's clock, and its
// row's fixed fields; its tallies fill as its records are merged.
struct Share {
  int rank = 0;
  json row;
  From from = From::kNone;
  std::vector<std::string> files;  // kFiles: per part ("" none)
  core::Nanos shift = 0;
  std::vector<Tally> tally;                       // per part
  std::vector<std::vector<core::CpuSample>> cpu;  // per worker
  std::string lost_why;  // a member that sent no report: why (its statement is made last)
  std::string stopped;   // why its records stopped before their end ("" they did not)
  std::string resumed;   // why and where its records were read from its file instead
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
Share leader_share(const Level& level, LeaderShare& own, Merged& m) {
  Share share;
  share.row = {{"rank", 0},
               {"host", level.session.host()},
               {"offset_ms", 0.0},
               {"uncertainty_ms", 0.0},
               {"status", own.canceled ? "canceled" : "ok"}};
  widen(m, own.measure_start, own.measure_end);
  share.from = From::kFiles;
  share.files = std::move(own.files);
  share.files.resize(level.part_count);
  share.tally.resize(level.part_count);
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

// Where rank `rank` writes part p's records when the results directory is shared ("" for a part
// without a directory).
std::string flushed_file(const Level& level, int rank, std::size_t p) {
  return p < level.part_dirs.size() ? level.part_dirs[p] + "/" + rank_records_file(rank, level.zstd)
                                    : std::string();
}

// A member that sent no records: what it flushed to a shared directory, if visible here (only
// when it is placed on the leader's clock), becomes its share's files.
void find_flushed(const Level& level, bool placed, Share& share) {
  share.files.assign(level.part_count, "");
  for (std::size_t p = 0; p < level.part_dirs.size() && p < level.part_count && placed; ++p) {
    const std::string path = flushed_file(level, share.rank, p);
    if (std::filesystem::exists(path)) {
      share.files[p] = path;
      share.from = From::kFiles;
    }
  }
}

// A member's share from its report (its records to be asked for, or, when no report came, what
// it flushed), with the shift that moves it onto the leader's clock.
Share member_share(const Level& level, RankReport& rep, Merged& m, Account& acc) {
  Share share;
  share.rank = rep.rank;
  share.tally.resize(level.part_count);
  share.row = {
      {"rank", rep.rank}, {"host", rep.host}, {"status", rep.canceled ? "canceled" : "ok"}};
  const std::optional<core::Nanos> placed = place_rank(level.session, rep.rank, share, acc);
  share.shift = placed.value_or(0);
  if (rep.error.empty()) {
    share.from = From::kMember;
    widen(m, rep.measure_start == core::kNever ? core::kNever : rep.measure_start + share.shift,
          rep.measure_end == core::kNever ? core::kNever : rep.measure_end + share.shift);
  } else {
    share.row["status"] = rep.lost ? "lost" : "failed";
    share.row["why"] = rep.error;
    share.lost_why = rep.error;
    find_flushed(level, placed.has_value(), share);
    m.partial = true;
  }
  for (auto& w : rep.cpu) {
    for (auto& sample : w) sample.t += share.shift;
  }
  share.cpu = std::move(rep.cpu);
  m.canceled = m.canceled || rep.canceled;
  return share;
}

// One share's records of one part, a record at a time, moved onto the leader's clock; a source
// that fails mid-way stops there, its share saying why.
class Source {
 public:
  Source(const Level& level, Share& share, std::size_t part) : share_(share) {
    const std::string name = fmt::format("rank {}'s records", share.rank);
    if (share.from == From::kMember) {
      remote_.emplace(level.session.comm(), share.rank, part);
      cursor_ = std::make_unique<records::RecordsCursor>(
          name, [this](std::string& line) { return remote_->next(line); });
      flushed_ = flushed_file(level, share.rank, part);
    } else if (share.from == From::kFiles && !share.files[part].empty()) {
      guard([&] { cursor_ = std::make_unique<records::RecordsCursor>(share.files[part]); });
    }
  }

  // The next record, or nullopt at the end (or once it failed).
  std::optional<core::RequestRecord> next() {
    std::optional<core::RequestRecord> r;
    if (cursor_) guard([&] { r = cursor_->next(); });
    const bool failed = remote_ && !remote_->failure().empty();
    if (!r && failed && !flushed_.empty()) r = resume();
    if (!r) {
      cursor_.reset();
      if (failed && share_.resumed.empty() && share_.stopped.empty()) {
        share_.stopped = remote_->failure();
      }
      return r;
    }
    ++taken_;
    shift_record(*r, share_.shift);
    return r;
  }

 private:
  // A member that stopped answering while it sent its records: the rest from the file it wrote
  // whole before it reported, when the results directory is shared and it is visible here.
  std::optional<core::RequestRecord> resume() {
    const std::string path = std::exchange(flushed_, "");
    if (!std::filesystem::exists(path)) return std::nullopt;
    std::optional<core::RequestRecord> r;
    guard([&] {
      cursor_ = std::make_unique<records::RecordsCursor>(path);
      for (std::int64_t i = 0; i < taken_ && cursor_->next(); ++i) {
      }
      r = cursor_->next();
    });
    if (cursor_) {
      share_.resumed =
          fmt::format("{}; the rest of its records were read from {}", remote_->failure(), path);
    }
    return r;
  }

  template <typename F>
  void guard(F&& f) {
    try {
      f();
    } catch (const std::exception& e) {
      if (share_.stopped.empty()) share_.stopped = e.what();
      cursor_.reset();
    }
  }

  Share& share_;
  std::optional<RemoteLines> remote_;
  std::unique_ptr<records::RecordsCursor> cursor_;
  std::string flushed_;     // a member's file in a shared directory, to resume from ("" none)
  std::int64_t taken_ = 0;  // records taken so far
};

// Part p of every share, merged into one sequence in the order requests ended (as a single
// process writes them: a k-way merge of the ranks' files, each already in that order).
void merge_part(const Level& level, std::vector<Share>& shares, std::size_t p,
                const MergedRecord& each) {
  struct Head {
    core::RequestRecord record;
    std::size_t source;
  };
  const auto later = [](const Head& a, const Head& b) {
    return std::tie(a.record.done, a.record.id, a.record.attempt) >
           std::tie(b.record.done, b.record.id, b.record.attempt);
  };
  std::vector<std::unique_ptr<Source>> sources;
  std::vector<Head> heads;
  const auto pull = [&](std::size_t i) {
    if (auto r = sources[i]->next()) {
      heads.push_back({std::move(*r), i});
      std::push_heap(heads.begin(), heads.end(), later);
    }
  };
  for (auto& share : shares) {
    sources.push_back(std::make_unique<Source>(level, share, p));
    pull(sources.size() - 1);
  }
  while (!heads.empty()) {
    std::pop_heap(heads.begin(), heads.end(), later);
    Head head = std::move(heads.back());
    heads.pop_back();
    shares[head.source].tally[p].add(head.record);
    each(p, head.record);
    pull(head.source);
  }
}

// The statements of what is missing from the shares whose records did not all come.
void state_missing(const Level& level, std::vector<Share>& shares, Merged& m, Account& acc) {
  for (auto& share : shares) {
    const int k = share.rank;
    const std::string host = share.row.value("host", "");
    const std::string what =
        share_of(position_of(level.session, k), level.session.members().size());
    std::int64_t got = 0;
    std::string from;
    for (std::size_t p = 0; p < share.tally.size(); ++p) {
      got += share.tally[p].read;
      if (share.from == From::kFiles && share.tally[p].read > 0) from = share.files[p];
    }
    if (!share.lost_why.empty()) {
      acc.missing.push_back(
          got > 0 ? fmt::format("rank {} ({}) {}. {} of its records were read from {} (flushed "
                                "once a second); the rest of its share ({}) is missing",
                                k, host, core::without_full_stop(share.lost_why), got, from, what)
                  : fmt::format("rank {} ({}) {}. Its share ({}) is missing", k, host,
                                core::without_full_stop(share.lost_why), what));
    } else if (!share.resumed.empty() && share.stopped.empty()) {
      share.row["why"] = share.resumed;
    } else if (!share.stopped.empty()) {
      share.row["status"] = "partial";
      share.row["why"] = share.stopped;
      acc.missing.push_back(fmt::format(
          "rank {} ({}) {}. {} of its records were merged; the rest of its share ({}) is missing",
          k, host, core::without_full_stop(share.stopped), got, what));
      m.partial = true;
    }
  }
}

// The rows of the ranks that sent no share (absent from the start, their hello said why, or lost
// before this measurement), each with its statement in `missing`.
json absent_rows(const Session& session, const std::vector<Share>& shares, json& missing) {
  const std::size_t members = session.members().size();
  json rows = json::array();
  for (const auto& a : session.absences()) {
    const bool reported = std::any_of(shares.begin(), shares.end(),
                                      [&a](const Share& s) { return s.rank == a.rank; });
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
    json row = rank_health(share.tally[p], share.cpu);
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

// The members still sending their records (or that may yet: one whose report came late), to be
// told when the leader has all it wants. A member that reported it could not measure sends none.
std::vector<int> serving(const std::vector<RankReport>& reports) {
  std::vector<int> ranks;
  for (const auto& rep : reports) {
    if (rep.error.empty() || rep.lost) ranks.push_back(rep.rank);
  }
  return ranks;
}

}  // namespace

Merged merge_level(Session& session, LeaderShare own, std::vector<RankReport> reports,
                   const std::vector<std::string>& part_dirs, bool zstd, const MergedRecord& each) {
  const Level level{session, own.files.size(), part_dirs, zstd};
  Merged m;
  m.canceled = own.canceled;
  Account acc;
  std::vector<Share> shares;
  shares.push_back(leader_share(level, own, m));
  for (auto& rep : reports) shares.push_back(member_share(level, rep, m, acc));
  // Each member waits for the leader's "end", whatever happens here.
  const std::vector<int> ranks = serving(reports);
  struct End {
    Comm& comm;
    const std::vector<int>& ranks;
    ~End() { end_records(comm, ranks); }
  } end{session.comm(), ranks};
  for (std::size_t p = 0; p < level.part_count; ++p) merge_part(level, shares, p, each);
  state_missing(level, shares, m, acc);
  const json absent = absent_rows(session, shares, acc.missing);
  for (std::size_t p = 0; p < level.part_count; ++p) {
    m.distributed.push_back(ranks_table(session, shares, p, absent, acc, m.partial));
  }
  for (auto& share : shares) {
    for (auto& w : share.cpu) m.cpu.push_back(std::move(w));
  }
  return m;
}

}  // namespace tokenbench::distributed
