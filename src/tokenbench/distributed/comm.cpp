#include "tokenbench/distributed/comm.h"

#include <thread>

namespace tokenbench::distributed {

std::optional<std::string> receive(Comm& comm, int from, Tag tag,
                                   std::chrono::steady_clock::time_point deadline,
                                   const std::function<bool()>& give_up) {
  using std::chrono::steady_clock;
  const auto spin_until = steady_clock::now() + std::chrono::milliseconds(5);
  while (true) {
    if (auto message = comm.poll(from, tag)) return message;
    if (comm.lost(from) || (give_up && give_up())) return std::nullopt;
    const auto now = steady_clock::now();
    if (now >= deadline) return std::nullopt;
    if (now < spin_until) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

}  // namespace tokenbench::distributed
