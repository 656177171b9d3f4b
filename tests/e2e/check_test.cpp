// End to end: `tokenbench check` against a ready server, a keyed one, and nothing.

#include <gtest/gtest.h>

#include "process.h"

namespace tokenbench::e2e {
namespace {

TEST(EndToEndCheck, ReadyServerPassesEveryStep) {
  SimProcess sim({"--time-scale", "10"});
  const auto r = run_process({TOKENBENCH_BINARY, "check", "--base-url", sim.url()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* line :
       {"  resolve  ok ", "  connect  ok ", "  tls      -  ", "  auth     ok ", "  models   ok ",
        "serves sim-model", "  stream   ok ", "tokens (from usage), finish_reason"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("Ready: tokenbench run --base-url " + sim.url() + " --model sim-model"),
            std::string::npos)
      << r.out;
}

TEST(EndToEndCheck, RejectedKeyFailsAtAuthWithAHint) {
  SimProcess sim({"--time-scale", "10", "--api-key", "right-key"});
  const auto r = run_process(
      {TOKENBENCH_BINARY, "check", "--base-url", sim.url(), "--api-key-env", "TB_TEST_KEY"},
      std::chrono::seconds(60), {{"TB_TEST_KEY", "wrong-key"}});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("  auth     FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("answered HTTP 401: the server rejected the API key from $TB_TEST_KEY"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("hint: check the API key and how it is passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  stream   -"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("wrong-key"), std::string::npos) << r.out;  // never shown
}

TEST(EndToEndCheck, NothingListeningFailsAtConnect) {
  const auto r = run_process({TOKENBENCH_BINARY, "check", "--base-url", "http://127.0.0.1:1"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("  connect  FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hint: is the server running at --base-url?"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Not ready"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tokenbench::e2e
