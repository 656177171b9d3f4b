// End to end: serve-sim --llama-timings sends llama.cpp's per-reply `timings`, from which the run
// builds the server-side breakdown (and `report` rebuilds it from requests.jsonl).

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "process.h"

namespace tokenbench::e2e {
namespace {

TEST(EndToEndLlamaTimings, TheBreakdownFromTimingsLeavesLittleOnLoopback) {
  SimProcess sim({"--preset", "fixed", "--ttft-ms", "30", "--itl-ms", "2", "--llama-timings"});
  const std::string dir = make_temp_dir("llama-timings");
  const auto r = run_process(run_args(
      sim.url(), dir,
      {"--num-prompts", "20", "--max-concurrency", "2", "--input-len", "16", "--output-len", "6"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& rec : read_records(dir + "/requests.jsonl")) {
    ASSERT_TRUE(rec.contains("server_timings")) << rec.dump();
    const auto& t = rec["server_timings"];
    EXPECT_EQ(t["predicted_n"], 6);
    EXPECT_EQ(t["prompt_n"], 16);
    // The server's first token is due 30 ms after it read the request, within the client's
    // TTFT: the remainder is never negative.
    EXPECT_GE(t["prompt_ms"].get<double>(), 30.0 - 0.01);
    const double ttft_ms =
        (rec["first_token_ns"].get<double>() - rec["sent_ns"].get<double>()) / 1e6;
    EXPECT_GE(ttft_ms, t["prompt_ms"].get<double>()) << rec.dump();
    EXPECT_NEAR(t["predicted_ms"].get<double>(), 10.0, 0.5);  // 5 gaps of 2 ms
  }
  const auto s = read_json(dir + "/summary.json");
  const auto& timings = s["tokenbench"]["server_timings"];
  EXPECT_EQ(timings["source"], "timings");
  EXPECT_EQ(timings["requests"], 20);
  EXPECT_GE(timings["ttft_remainder"]["mean_ms"].get<double>(), 0.0);
  EXPECT_LT(timings["ttft_remainder"]["mean_ms"].get<double>(), 20.0) << timings.dump();
  EXPECT_NEAR(timings["decode_per_token"]["p50_ms"].get<double>(), 2.0, 0.1);
  EXPECT_NE(r.out.find("Server timings (source: timings"), std::string::npos) << r.out;

  // `report` rebuilds the same breakdown from requests.jsonl.
  const auto before = timings.dump();
  std::filesystem::remove(dir + "/report.txt");
  const auto rep = run_process({TOKENBENCH_BINARY, "report", dir});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(read_json(dir + "/summary.json")["tokenbench"]["server_timings"].dump(), before);
}

}  // namespace
}  // namespace tokenbench::e2e
