// End to end: `tokenbench check` against a ready server, a keyed one, and nothing.

#include <gtest/gtest.h>

#include <filesystem>

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

// A model id that is shell code: the Ready line quotes it, so pasting the line runs nothing.
TEST(EndToEndCheck, ReadyLineQuotesWhatTheServerNamed) {
  const std::string marker = make_temp_dir("check-quote") + "/pwned";
  const std::string model = "m1;touch${IFS}" + marker;
  SimProcess sim({"--time-scale", "10", "--model", model});
  const auto r = run_process({TOKENBENCH_BINARY, "check", "--base-url", sim.url()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto at = r.out.find("Ready: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string line = r.out.substr(at + 7, r.out.find('\n', at) - at - 7);
  EXPECT_NE(line.find(" --model '" + model + "'"), std::string::npos) << line;
  // Pasted into a shell (with `true` for the program), the line creates nothing.
  const auto pasted = run_process({"/bin/sh", "-c", "set -- " + line.substr(11)});
  EXPECT_EQ(pasted.exit_code, 0) << pasted.err;
  EXPECT_FALSE(std::filesystem::exists(marker));
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
