// The write-lateness instrument (--debug-lateness): its buckets, early writes, several loops.

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "tokenbench/sim/write_lateness.h"

namespace tokenbench::sim {
namespace {

using core::Clock;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

const Clock::time_point kT0 = Clock::time_point{} + seconds(1000);

TEST(SimWriteLateness, HistogramAndEarlyCount) {
  WriteLateness lateness(2);
  lateness.record(0, kT0, kT0 + microseconds(3));  // bucket le=5e-06
  lateness.record(1, kT0, kT0 + microseconds(3));  // another loop
  lateness.record(0, kT0, kT0 + milliseconds(2));  // le=0.002
  lateness.record(1, kT0, kT0 - microseconds(1));  // early
  lateness.record(0, kT0, kT0 + seconds(5));       // above every bound
  std::string text;
  lateness.count_write(0);
  lateness.count_write(1);
  lateness.render(text);
  EXPECT_NE(text.find("tokenbench_sim:token_lateness_seconds_bucket{le=\"2e-06\"} 0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tokenbench_sim:token_lateness_seconds_bucket{le=\"5e-06\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tokenbench_sim:token_lateness_seconds_bucket{le=\"0.002\"} 3\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tokenbench_sim:token_lateness_seconds_bucket{le=\"+Inf\"} 4\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tokenbench_sim:token_lateness_seconds_count 4\n"), std::string::npos);
  EXPECT_NE(text.find("tokenbench_sim:tokens_early_total 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("tokenbench_sim:stream_writes_total 2\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace tokenbench::sim
