#include "tokenbench/client/rx_stamps.h"

#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>

#include <chrono>
#include <cstring>
#include <limits>
#include <thread>

namespace tokenbench::client {

bool enable_rx_stamps(int fd) {
  const int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
  return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags) == 0;
}

void keep_rx_stamps_on() {
  static const bool on = [] {
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);  // never closed, on purpose
    const bool ok = fd >= 0 && enable_rx_stamps(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return ok;
  }();
  (void)on;
}

ssize_t recv_stamped(int fd, char* buf, std::size_t len, std::int64_t& realtime_ns) {
  iovec iov{buf, len};
  // Room for one scm_timestamping (three timespecs), aligned as a control message must be.
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec) * 3)];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  const ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT);
  realtime_ns = 0;
  if (n <= 0) return n;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_TIMESTAMPING) continue;
    timespec ts[3];
    std::memcpy(ts, CMSG_DATA(c), sizeof ts);
    // ts[0] is the software stamp; ts[2] the hardware one (unused on loopback and most NICs).
    if (ts[0].tv_sec != 0 || ts[0].tv_nsec != 0) {
      realtime_ns = std::int64_t{ts[0].tv_sec} * 1'000'000'000 + ts[0].tv_nsec;
    }
  }
  return n;
}

void RealtimeToRun::sample() {
  std::int64_t best_gap = std::numeric_limits<std::int64_t>::max();
  for (int i = 0; i < 5; ++i) {
    const core::Nanos before = clock_.now();
    timespec rt{};
    clock_gettime(CLOCK_REALTIME, &rt);
    const core::Nanos after = clock_.now();
    if (after - before < best_gap) {
      best_gap = after - before;
      const std::int64_t realtime = std::int64_t{rt.tv_sec} * 1'000'000'000 + rt.tv_nsec;
      offset_ = realtime - (before + (after - before) / 2);
    }
  }
  next_sample_ = clock_.now() + kResamplePeriod;
}

}  // namespace tokenbench::client
