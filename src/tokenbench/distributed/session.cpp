#include "tokenbench/distributed/session.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "tokenbench/core/json_parse.h"
#include "tokenbench/distributed/mpi_comm.h"

namespace tokenbench::distributed {

using json = nlohmann::json;
using Steady = std::chrono::steady_clock;

namespace {

// How long a canceled run waits for the others at the gate and for their results: the run is
// stopping, and mpirun kills what is still running soon after a Ctrl-C.
constexpr auto kCanceledGrace = std::chrono::milliseconds(500);

// give_up() for a wait: true once `canceled` has held for kCanceledGrace.
std::function<bool()> grace_after_cancel(const std::function<bool()>& canceled) {
  auto since = std::make_shared<Steady::time_point>(Steady::time_point::max());
  return [canceled, since] {
    if (!canceled || !canceled()) return false;
    const auto now = Steady::now();
    if (*since == Steady::time_point::max()) *since = now;
    return now - *since >= kCanceledGrace;
  };
}

std::string silent_why() {
  return "stopped answering (no word for " + std::to_string(kLostAfterSeconds) +
         " s): the process died, or its host or network failed";
}

}  // namespace

std::string encode_report(const RankReport& r) {
  json head;
  head["rank"] = r.rank;
  head["host"] = r.host;
  head["error"] = r.error;
  head["canceled"] = r.canceled;
  head["origin_ns"] = r.origin_ns;
  head["measure_start"] = r.measure_start;
  head["measure_end"] = r.measure_end;
  json cpu = json::array();
  for (const auto& worker : r.cpu) {
    json samples = json::array();
    for (const auto& s : worker) samples.push_back({s.t, s.cpu});
    cpu.push_back(std::move(samples));
  }
  head["cpu"] = std::move(cpu);
  return head.dump();
}

RankReport decode_report(const std::string& bytes) {
  RankReport r;
  try {
    const json head = core::parse_json(bytes);
    r.rank = head.at("rank").get<int>();
    r.host = head.at("host").get<std::string>();
    r.error = head.at("error").get<std::string>();
    r.canceled = head.at("canceled").get<bool>();
    r.origin_ns = head.at("origin_ns").get<std::int64_t>();
    r.measure_start = head.at("measure_start").get<core::Nanos>();
    r.measure_end = head.at("measure_end").get<core::Nanos>();
    for (const auto& worker : head.at("cpu")) {
      auto& samples = r.cpu.emplace_back();
      for (const auto& s : worker)
        samples.push_back({s.at(0).get<core::Nanos>(), s.at(1).get<core::Nanos>()});
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("a rank's result is malformed: ") + e.what());
  }
  return r;
}

Session::Session(Comm& comm) : comm_(comm), host_(host_name()) { hosts_[comm.rank()] = host_; }

void Session::say_hello(const std::string& error) {
  comm_.send(0, Tag::kHello, json{{"host", host_}, {"error", error}}.dump());
}

std::vector<Absence> Session::hear_hellos() {
  for (int k = 1; k < size(); ++k) {
    const auto hello = receive(comm_, k, Tag::kHello);
    if (!hello) {
      mark_absent(k, silent_why());
      continue;
    }
    const json h = core::parse_json_or_discarded(*hello);
    hosts_[k] = h.value("host", std::string("unknown"));
    const std::string error = h.value("error", std::string());
    if (error.empty()) {
      takers_.push_back(k);
    } else {
      mark_absent(k, error);
    }
  }
  return absences_;
}

void Session::mark_absent(int rank, const std::string& why) {
  for (const auto& a : absences_) {
    if (a.rank == rank) return;
  }
  const auto host = hosts_.find(rank);
  absences_.push_back({rank, host == hosts_.end() ? "unknown" : host->second, why});
}

void Session::announce_level(const std::string& config_yaml) {
  members_ = {0};
  for (const int k : takers_) {
    const bool absent = std::any_of(absences_.begin(), absences_.end(),
                                    [k](const Absence& a) { return a.rank == k; });
    if (absent) continue;
    if (comm_.lost(k)) {
      mark_absent(k, silent_why());
      continue;
    }
    members_.push_back(k);
  }
  const auto count = members_.size();
  for (std::size_t position = 1; position < count; ++position) {
    comm_.send(members_[position], Tag::kLevel,
               json{{"config", config_yaml}, {"position", position}, {"members", count}}.dump());
  }
  shard_ = {0, count};
}

std::optional<std::string> Session::await_level(const std::function<bool()>& give_up) {
  while (true) {
    if (const auto level = comm_.poll(0, Tag::kLevel)) {
      const json l = core::parse_json(*level);
      shard_ = {l.at("position").get<std::size_t>(), l.at("members").get<std::size_t>()};
      return l.at("config").get<std::string>();
    }
    if (comm_.poll(0, Tag::kFinish)) return std::nullopt;
    if (comm_.lost(0)) {
      leader_lost_ = true;
      return std::nullopt;
    }
    if (give_up && give_up()) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

std::optional<core::Nanos> Session::common_start(const core::RunClock& clock,
                                                 const std::string& error,
                                                 const std::function<bool()>& give_up) {
  const std::int64_t origin = clock.origin_ns();
  if (!leader()) {
    comm_.send(0, Tag::kReady, json{{"origin_ns", origin}, {"error", error}}.dump());
    auto busy_until = Steady::now() + std::chrono::milliseconds(5);
    while (true) {
      if (answer_probe(comm_)) busy_until = Steady::now() + std::chrono::milliseconds(20);
      if (const auto go = comm_.poll(0, Tag::kGo)) {
        if (*go == "skip") return std::nullopt;
        const std::int64_t start = std::stoll(*go);
        return start - origin;
      }
      if (comm_.lost(0)) return std::nullopt;
      if (Steady::now() < busy_until) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    }
  }
  offsets_.clear();
  origins_.clear();
  offsets_[0] = ClockOffset{};
  origins_[0] = origin;
  const auto stop_waiting = grace_after_cancel(give_up);
  std::vector<int> ready;
  for (std::size_t i = 1; i < members_.size(); ++i) {
    const int k = members_[i];
    const auto msg = receive(comm_, k, Tag::kReady, Steady::time_point::max(), stop_waiting);
    if (!msg) {
      mark_absent(k, comm_.lost(k) ? silent_why() : "was not ready when the run was canceled");
      continue;
    }
    const json r = core::parse_json(*msg);
    origins_[k] = r.at("origin_ns").get<std::int64_t>();
    const std::string why = r.value("error", std::string());
    if (!why.empty() || !error.empty()) {  // its result (or the leader's error) says why
      comm_.send(k, Tag::kGo, "skip");
      continue;
    }
    ready.push_back(k);
  }
  if (!error.empty()) return std::nullopt;
  std::int64_t widest_rtt = 0;
  std::vector<int> probed;
  for (const int k : ready) {
    try {
      offsets_[k] = probe_clock(comm_, k);
      widest_rtt = std::max(widest_rtt, offsets_[k].rtt_ns);
      probed.push_back(k);
    } catch (const std::exception& e) {
      mark_absent(k, e.what());
      comm_.send(k, Tag::kGo, "skip");
    }
  }
  // Far enough ahead that every member hears of it before it comes.
  const std::int64_t margin = 50'000'000 + 4 * widest_rtt;
  const std::int64_t start = steady_now_ns() + margin;
  for (const int k : probed) comm_.send(k, Tag::kGo, std::to_string(start + offsets_[k].offset_ns));
  return start - origin;
}

void Session::send_report(const RankReport& report) {
  comm_.send(0, Tag::kResult, encode_report(report));
}

std::vector<RankReport> Session::gather_reports(bool canceled) {
  std::vector<RankReport> out;
  const auto stop_waiting = grace_after_cancel([canceled] { return canceled; });
  for (std::size_t i = 1; i < members_.size(); ++i) {
    const int k = members_[i];
    RankReport r;
    r.rank = k;
    r.host = hosts_.count(k) ? hosts_.at(k) : "unknown";
    const auto msg = receive(comm_, k, Tag::kResult, Steady::time_point::max(), stop_waiting);
    if (!msg) {
      r.lost = true;
      r.error = comm_.lost(k) ? silent_why()
                              : "sent no result within 0.5 s of the stop (mpirun stops every rank "
                                "when one of them dies, and on Ctrl-C)";
      mark_absent(k, r.error);
    } else {
      try {
        r = decode_report(*msg);
      } catch (const std::exception& e) {
        r.error = e.what();
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

void Session::finish(int exit_code) {
  // Every follower still there, also those that took no part: they wait for this to end.
  for (int k = 1; k < size(); ++k) {
    if (!comm_.lost(k)) comm_.send(k, Tag::kFinish, std::to_string(exit_code));
  }
}

}  // namespace tokenbench::distributed
