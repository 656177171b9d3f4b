// Kernel receive stamps: present, ordered, no later than the user-space stamps of the same reads,
// and converted to the run's clock through an offset that matches clock_gettime.

#include "tokenbench/client/rx_stamps.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace tokenbench::client {
namespace {

using namespace std::chrono_literals;

std::int64_t realtime_now() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

TEST(RealtimeToRun, OffsetMatchesClockGettime) {
  core::RunClock clock;
  RealtimeToRun convert(clock);
  for (int i = 0; i < 5; ++i) {
    const core::Nanos before = clock.now();
    const std::int64_t realtime = realtime_now();
    const core::Nanos after = clock.now();
    // The realtime reading converted lies between the two run-clock readings around it (with a
    // margin for the sampling's own bracket).
    const core::Nanos converted = convert.to_run(realtime, after);
    EXPECT_GE(converted, before - 50'000);
    EXPECT_LE(converted, after);
    EXPECT_NEAR(static_cast<double>(convert.offset()), static_cast<double>(realtime - before),
                100'000.0);
    std::this_thread::sleep_for(1ms);
  }
}

TEST(RealtimeToRun, NeverLaterThanTheReadThatCarriedIt) {
  core::RunClock clock;
  RealtimeToRun convert(clock);
  const core::Nanos now = clock.now();
  // A stamp "from the future" (a clock step) is clamped to the read's own time.
  EXPECT_EQ(convert.to_run(realtime_now() + 1'000'000'000, now), now);
}

// A connected loopback TCP pair: {client, server}.
std::pair<int, int> tcp_pair() {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(listen(listener, 1), 0);
  socklen_t len = sizeof addr;
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  const int client = socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_EQ(connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const int server = accept(listener, nullptr, nullptr);
  close(listener);
  const int one = 1;
  setsockopt(server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return {client, server};
}

TEST(RxStamps, KernelStampsArePresentOrderedAndEarlierThanTheReads) {
  auto [client, server] = tcp_pair();
  ASSERT_TRUE(enable_rx_stamps(client));
  core::RunClock clock;
  RealtimeToRun convert(clock);
  keep_rx_stamps_on();
  // Three messages 30 ms apart, each read 15 ms after it was written: the kernel's stamps keep
  // the arrival times, the user-space stamps read the late moments.
  std::vector<core::Nanos> kernel;
  for (int i = 0; i < 3; ++i) {
    // The write's moment lies between these two stamps: a busy machine may deschedule this
    // thread right after send(), so the arrival can precede the second.
    const core::Nanos before_write = clock.now();
    ASSERT_EQ(send(server, "abcd", 4, 0), 4);
    const core::Nanos written = clock.now();
    std::this_thread::sleep_for(15ms);
    char buf[4];
    std::int64_t realtime = 0;
    ASSERT_EQ(recv_stamped(client, buf, sizeof buf, realtime), 4);
    const core::Nanos user = clock.now();
    ASSERT_NE(realtime, 0) << "read " << i << " carried no kernel stamp";
    const core::Nanos k = convert.to_run(realtime, user);
    EXPECT_LE(k, user);
    EXPECT_GE(k, before_write - 1'000'000);  // not before the write (1 ms: offset's bracket)
    EXPECT_LT(k, written + 5'000'000);       // and close to it, though read 15 ms later
    EXPECT_GT(user - k, 14'000'000);
    kernel.push_back(k);
    std::this_thread::sleep_for(15ms);
  }
  EXPECT_LT(kernel[0], kernel[1]);
  EXPECT_LT(kernel[1], kernel[2]);
  EXPECT_NEAR(static_cast<double>(kernel[2] - kernel[0]), 60e6, 10e6);
  close(client);
  close(server);
}

TEST(RxStamps, UnreadSegmentsCoalesceUnderTheNewestStamp) {
  // The kernel merges segments that wait unread into one buffer stamped with the newest arrival:
  // a read that returns several stamps them all with the last one (docs/METRICS.md, Stamps).
  keep_rx_stamps_on();
  auto [client, server] = tcp_pair();
  ASSERT_TRUE(enable_rx_stamps(client));
  core::RunClock clock;
  RealtimeToRun convert(clock);
  ASSERT_EQ(send(server, "ab", 2, 0), 2);
  std::this_thread::sleep_for(20ms);
  ASSERT_EQ(send(server, "cd", 2, 0), 2);
  const core::Nanos second = clock.now();
  std::this_thread::sleep_for(5ms);
  char buf[4];
  std::int64_t realtime = 0;
  ASSERT_EQ(recv_stamped(client, buf, sizeof buf, realtime), 4);
  ASSERT_NE(realtime, 0);
  EXPECT_NEAR(static_cast<double>(convert.to_run(realtime, clock.now())),
              static_cast<double>(second), 2e6);
  close(client);
  close(server);
}

TEST(RxStamps, WithoutTheOptionReadsCarryNoStamp) {
  auto [client, server] = tcp_pair();
  ASSERT_EQ(send(server, "x", 1, 0), 1);
  std::this_thread::sleep_for(5ms);
  char buf[8];
  std::int64_t realtime = -1;
  EXPECT_EQ(recv_stamped(client, buf, sizeof buf, realtime), 1);
  EXPECT_EQ(realtime, 0);
  close(client);
  close(server);
}

}  // namespace
}  // namespace tokenbench::client
