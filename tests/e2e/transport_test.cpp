// End to end: the transport flags. Kernel receive stamps by default on plain http://, user-space
// stamps when asked, a connection per request with its set-up stamped, and --stamps kernel
// refused where the native transport cannot go.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>

#include "process.h"

namespace tokenbench::e2e {
namespace {

const std::vector<std::string> kSmall{"--num-prompts", "6", "--input-len",       "16",
                                      "--output-len",  "8", "--max-concurrency", "2"};

TEST(Transport, KernelStampsByDefaultUserStampsWhenAsked) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  std::string dir = make_temp_dir("stamps-kernel");
  auto r = run_process(run_args(sim.url(), dir, kSmall));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto records = read_records(dir + "/requests.jsonl");
  ASSERT_EQ(records.size(), 6u);
  for (const auto& rec : records) {
    EXPECT_EQ(rec.value("stamps", "user"), "kernel") << rec.dump();
    EXPECT_FALSE(rec.contains("connected_ns")) << rec.dump();  // kept-alive connections
  }

  dir = make_temp_dir("stamps-user");
  r = run_process(run_args(sim.url(), dir, with(kSmall, {"--stamps", "user"})));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  records = read_records(dir + "/requests.jsonl");
  ASSERT_EQ(records.size(), 6u);
  for (const auto& rec : records) EXPECT_EQ(rec.value("stamps", "user"), "user") << rec.dump();
}

TEST(Transport, PerRequestConnectionsRecordTheirConnectTime) {
  SimProcess sim({"--ttft-ms", "2", "--itl-ms", "1"});
  for (const char* transport : {"auto", "curl"}) {
    const std::string dir = make_temp_dir(std::string("per-request-") + transport);
    const auto r = run_process(
        run_args(sim.url(), dir,
                 with(kSmall, {"--connection-mode", "per-request", "--transport", transport})));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto records = read_records(dir + "/requests.jsonl");
    ASSERT_EQ(records.size(), 6u);
    for (const auto& rec : records) {
      ASSERT_TRUE(rec.contains("connected_ns")) << transport << ": " << rec.dump();
      EXPECT_GE(rec["connected_ns"].get<std::int64_t>(), rec["sent_ns"].get<std::int64_t>());
      EXPECT_LE(rec["connected_ns"].get<std::int64_t>(), rec["first_token_ns"].get<std::int64_t>());
    }
  }
}

TEST(Transport, KernelStampsAreRefusedWhereTheNativeTransportCannotGo) {
  const std::string dir = make_temp_dir("stamps-refused");
  setenv("http_proxy", "http://127.0.0.1:9", 1);  // inherited by the child
  auto r = run_process(run_args("http://127.0.0.1:9", dir, with(kSmall, {"--stamps", "kernel"})));
  unsetenv("http_proxy");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("--stamps kernel needs the native transport"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("http_proxy applies"), std::string::npos) << r.err;
  r = run_process(run_args("http://127.0.0.1:9", dir,
                           with(kSmall, {"--stamps", "kernel", "--transport", "curl"})));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("--transport curl is set"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tokenbench::e2e
