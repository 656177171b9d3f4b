#include "tokenbench/distributed/mpi_comm.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#ifdef TOKENBENCH_MPI
#include <mpi.h>
#endif

namespace tokenbench::distributed {

int launched_ranks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}) {
    if (const char* v = std::getenv(name)) {
      const int n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  return 1;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

#ifndef TOKENBENCH_MPI

bool mpi_built() { return false; }

std::unique_ptr<Comm> join_mpi_world() {
  throw std::runtime_error(
      "this tokenbench was built without MPI: install libopenmpi-dev (scripts/install-deps.sh) "
      "and rebuild, or run without mpirun");
}

#else

bool mpi_built() { return true; }

namespace {

using Steady = std::chrono::steady_clock;

// A message longer than this goes in pieces (MPI counts are ints), received one at a time so
// that the liveness thread's heartbeats go on between them (a piece takes well under a second).
constexpr std::size_t kPiece = std::size_t{64} << 20;

class MpiComm final : public Comm {
 public:
  MpiComm() {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
      throw std::runtime_error("MPI_Init_thread failed: is this process started by mpirun?");
    }
    if (provided < MPI_THREAD_SERIALIZED) {
      MPI_Finalize();
      throw std::runtime_error(
          "this MPI library does not allow calls from more than one thread "
          "(MPI_THREAD_SERIALIZED): use Open MPI 4 or later");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    heard_ = std::vector<std::atomic<std::int64_t> >(static_cast<std::size_t>(size_));
    for (auto& h : heard_) h.store(now_ns());
    liveness_ = std::thread([this] { liveness(); });
  }

  ~MpiComm() override { close(0); }

  void close(int /*exit_code*/) override {
    if (closed_) return;
    closed_ = true;
    // What this rank printed reaches mpirun before anything below can wait.
    std::fflush(stdout);
    std::fflush(stderr);
    // Every rank meets here before MPI_Finalize; a rank that died never comes (MPI_Barrier would
    // wait for it forever), so the meeting is polled, while the liveness thread still runs.
    MPI_Request meeting = MPI_REQUEST_NULL;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      MPI_Ibarrier(MPI_COMM_WORLD, &meeting);
    }
    const auto give_up = Steady::now() + std::chrono::seconds(2 * kLostAfterSeconds);
    bool met = false;
    while (!met && Steady::now() < give_up) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        int done = 0;
        MPI_Test(&meeting, &done, MPI_STATUS_IGNORE);
        met = done != 0;
      }
      bool any_lost = false;
      for (int r = 0; r < size_; ++r) any_lost = any_lost || lost(r);
      if (any_lost) break;
      if (!met) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    stop_.store(true);
    liveness_.join();
    // MPI_Finalize would wait for the missing rank forever: the process ends without it.
    if (!met) return;
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& p : pending_) MPI_Wait(&p.request, MPI_STATUS_IGNORE);
    pending_.clear();
    MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void send(int to, Tag tag, std::string bytes) override {
    if (lost(to)) return;
    std::lock_guard<std::mutex> lock(mutex_);
    // A length first, then the bytes in pieces of at most kPiece, all under the same tag.
    auto length = std::make_shared<std::string>(std::to_string(bytes.size()));
    post(to, tag, length);
    auto body = std::make_shared<std::string>(std::move(bytes));
    for (std::size_t at = 0; at < body->size(); at += kPiece) {
      post(to, tag, body, at, std::min(kPiece, body->size() - at));
    }
  }

  std::optional<std::string> poll(int from, Tag tag) override {
    std::string bytes;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      int arrived = 0;
      MPI_Status status;
      if (MPI_Iprobe(from, static_cast<int>(tag), MPI_COMM_WORLD, &arrived, &status) !=
              MPI_SUCCESS ||
          !arrived) {
        return std::nullopt;
      }
      const std::string length = receive_piece(from, tag, status);
      bytes.resize(static_cast<std::size_t>(std::strtoull(length.c_str(), nullptr, 10)));
    }
    // Only this thread receives messages of this tag from `from` (the liveness thread takes
    // heartbeats alone), and MPI keeps their order: the pieces are the next ones.
    for (std::size_t at = 0; at < bytes.size(); at += kPiece) {
      std::lock_guard<std::mutex> lock(mutex_);
      const int count = static_cast<int>(std::min(kPiece, bytes.size() - at));
      MPI_Recv(bytes.data() + at, count, MPI_BYTE, from, static_cast<int>(tag), MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    }
    heard_[static_cast<std::size_t>(from)].store(now_ns());
    return bytes;
  }

  bool lost(int rank) const override {
    // Followers hear only the leader, the leader hears every follower.
    if (rank == rank_ || rank < 0 || rank >= size_ || (rank_ != 0 && rank != 0)) return false;
    return now_ns() - heard_[static_cast<std::size_t>(rank)].load() >
           std::int64_t{kLostAfterSeconds} * 1'000'000'000;
  }

 private:
  struct Pending {
    std::shared_ptr<std::string> bytes;  // kept alive until the send completes
    MPI_Request request;
  };

  static std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Steady::now().time_since_epoch())
        .count();
  }

  // Under mutex_.
  void post(int to, Tag tag, const std::shared_ptr<std::string>& bytes, std::size_t at = 0,
            std::size_t count = std::string::npos) {
    if (count == std::string::npos) count = bytes->size();
    Pending p{bytes, MPI_REQUEST_NULL};
    MPI_Isend(bytes->data() + at, static_cast<int>(count), MPI_BYTE, to, static_cast<int>(tag),
              MPI_COMM_WORLD, &p.request);
    pending_.push_back(std::move(p));
  }

  // Under mutex_: the piece `status` announced.
  static std::string receive_piece(int from, Tag tag, MPI_Status& status) {
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    std::string piece(static_cast<std::size_t>(std::max(0, count)), '\0');
    MPI_Recv(piece.data(), count, MPI_BYTE, from, static_cast<int>(tag), MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    return piece;
  }

  // Says "alive" to the peers that listen (the leader to every follower, a follower to the
  // leader), hears theirs, and retires completed sends.
  void liveness() {
    const auto period = std::chrono::milliseconds(250);
    auto next_beat = Steady::now();
    while (!stop_.load()) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (Steady::now() >= next_beat) {
          next_beat += 2 * period;
          for (int r = 0; r < size_; ++r) {
            if (r != rank_ && (rank_ == 0 || r == 0)) {
              auto beat = std::make_shared<std::string>("1");
              post(r, Tag::kHeartbeat, beat);
            }
          }
        }
        while (true) {
          int arrived = 0;
          MPI_Status status;
          if (MPI_Iprobe(MPI_ANY_SOURCE, static_cast<int>(Tag::kHeartbeat), MPI_COMM_WORLD,
                         &arrived, &status) != MPI_SUCCESS ||
              !arrived) {
            break;
          }
          receive_piece(status.MPI_SOURCE, Tag::kHeartbeat, status);
          heard_[static_cast<std::size_t>(status.MPI_SOURCE)].store(now_ns());
        }
        for (auto it = pending_.begin(); it != pending_.end();) {
          int done = 0;
          MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
          it = done ? pending_.erase(it) : std::next(it);
        }
      }
      std::this_thread::sleep_for(period);
    }
  }

  int rank_ = 0;
  int size_ = 1;
  std::mutex mutex_;  // every MPI call (MPI_THREAD_SERIALIZED)
  std::deque<Pending> pending_;
  std::vector<std::atomic<std::int64_t> > heard_;  // ns on the steady clock, per rank
  std::atomic<bool> stop_{false};
  bool closed_ = false;
  std::thread liveness_;
};

}  // namespace

std::unique_ptr<Comm> join_mpi_world() { return std::make_unique<MpiComm>(); }

#endif

}  // namespace tokenbench::distributed
