#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "tokenbench/core/clock.h"

namespace tokenbench::client {

/// Asks the kernel to stamp every segment `fd` receives with its software receive time
/// (SO_TIMESTAMPING, SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE). False when the
/// kernel refuses; reads then carry no kernel stamp and the caller falls back to user space.
bool enable_rx_stamps(int fd);

/// Keeps receive timestamping switched on in the kernel for the life of the process. The kernel
/// turns it on for all sockets when the first one asks, through deferred work, and off again when
/// the last one closes: without a socket that keeps it on, the first reads on a new connection
/// could arrive unstamped. Cheap after the first call (which waits 2 ms for the switch).
void keep_rx_stamps_on();

/// One read of a socket: recvmsg into `buf`, with the kernel's receive time of the newest segment
/// it returned in `realtime_ns` (CLOCK_REALTIME nanoseconds; 0 when the kernel gave none). For
/// TCP the kernel stamps the read with the last segment it copied from, so a read that completes
/// an event carries the arrival time of that event's last bytes. Returns what recvmsg returns.
ssize_t recv_stamped(int fd, char* buf, std::size_t len, std::int64_t& realtime_ns);

/// Converts the kernel's CLOCK_REALTIME receive stamps to the run's monotonic clock. The offset
/// between the two clocks is sampled with the realtime read bracketed by two monotonic reads
/// (the closest bracket of a few tries wins), and sampled again every `kResamplePeriod` so a
/// clock step (NTP, an operator) moves the conversion within that period.
class RealtimeToRun {
 public:
  explicit RealtimeToRun(const core::RunClock& clock) : clock_(clock) { sample(); }

  /// The run-clock time of kernel stamp `realtime_ns`, resampling the offset when it is due.
  /// `now` is a run-clock reading taken after the read (the stamp is never later than it).
  core::Nanos to_run(std::int64_t realtime_ns, core::Nanos now) {
    if (now >= next_sample_) sample();
    const core::Nanos t = realtime_ns - offset_;
    return t < now ? t : now;
  }
  /// realtime - run clock, as last sampled.
  std::int64_t offset() const { return offset_; }
  /// Samples the offset now.
  void sample();

  static constexpr core::Nanos kResamplePeriod = 1'000'000'000;

 private:
  const core::RunClock& clock_;
  std::int64_t offset_ = 0;
  core::Nanos next_sample_ = 0;
};

}  // namespace tokenbench::client
