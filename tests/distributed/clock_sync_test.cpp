#include "tokenbench/distributed/clock_sync.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

#include "local_comm.h"

namespace tokenbench::distributed {
namespace {

// NTP's exchange: the follower's clock reads 1,000 ns ahead of the leader's. The probe with the
// least round trip decides, and the error bound is half that round trip.
TEST(ClockOffset, TheProbeOfLeastRoundTripDecides) {
  const std::vector<Probe> probes = {
      {10'000, 12'500, 13'000},  // rtt 3000: the answer sat 2,500 ns after sending -> biased
      {20'000, 21'100, 20'200},  // rtt 200: peer read 21,100 near leader 20,100
      {30'000, 31'400, 30'900},  // rtt 900
  };
  const ClockOffset o = estimate_offset(probes);
  EXPECT_EQ(o.rtt_ns, 200);
  EXPECT_EQ(o.offset_ns, 1'000);
  EXPECT_EQ(o.uncertainty_ns, 100);
  EXPECT_EQ(o.probes, 3);
}

TEST(ClockOffset, AProbeThatComesBackBeforeItLeftIsIgnored) {
  const ClockOffset o = estimate_offset({{100, 50, 90}, {1000, 950, 1100}});
  EXPECT_EQ(o.probes, 1);
  EXPECT_EQ(o.offset_ns, -100);
  EXPECT_EQ(o.uncertainty_ns, 50);
  EXPECT_THROW(estimate_offset({{100, 50, 90}}), std::invalid_argument);
  EXPECT_THROW(estimate_offset({}), std::invalid_argument);
}

// Two threads of one process share one steady clock: the estimate is near zero, within its own
// uncertainty, and checked against a direct reading of the clock.
TEST(ClockOffset, ProbingOneClockFindsNoOffset) {
  testing::LocalWorld world(2);
  testing::LocalComm leader(world, 0), follower(world, 1);
  std::atomic<bool> stop{false};
  std::thread answering([&] {
    while (!stop.load()) {
      if (!answer_probe(follower)) std::this_thread::yield();
    }
  });
  const std::int64_t before = steady_now_ns();
  const ClockOffset o = probe_clock(leader, 1);
  const std::int64_t after = steady_now_ns();
  stop.store(true);
  answering.join();
  EXPECT_GE(o.probes, kProbes);
  EXPECT_LE(o.probes, kMaxProbes);
  EXPECT_GE(o.rtt_ns, 0);
  EXPECT_LE(o.rtt_ns, after - before);
  EXPECT_LE(std::abs(o.offset_ns), o.uncertainty_ns);
}

TEST(ClockOffset, ALostPeerIsAnErrorNotAHang) {
  testing::LocalWorld world(2);
  testing::LocalComm leader(world, 0);
  world.lose(1);
  EXPECT_THROW(probe_clock(leader, 1), std::runtime_error);
}

}  // namespace
}  // namespace tokenbench::distributed
