// The environment record's probe of the client machine.

#include "tokenbench/collect/environment_probe.h"

#include <gtest/gtest.h>

namespace tokenbench::collect {
namespace {

TEST(Environment, HostFactsAreRead) {
  const telemetry::HostFacts h = collect_host();
  EXPECT_FALSE(h.host.empty());
  EXPECT_EQ(h.os_sysname, "Linux");
  EXPECT_FALSE(h.os_release.empty());
  EXPECT_GT(h.cpu_count, 0);
}

}  // namespace
}  // namespace tokenbench::collect
