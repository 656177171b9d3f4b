// End to end: --nonstream-sample sends K measured requests non-streamed and compares them with
// the streamed ones.

#include <gtest/gtest.h>

#include <string>

#include "process.h"

namespace tokenbench::e2e {
namespace {

TEST(EndToEndStreamSample, FiveOfFortyAreNonStreamedAndSetAside) {
  SimProcess sim({"--preset", "fixed", "--ttft-ms", "20", "--itl-ms", "2"});
  const std::string dir = make_temp_dir("nonstream-sample");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           {"--num-prompts", "40", "--max-concurrency", "4", "--input-len", "16",
                            "--output-len", "8", "--nonstream-sample", "5", "--warmup", "2"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int sample = 0;
  for (const auto &rec : read_records(dir + "/requests.jsonl")) {
    if (!rec.value("nonstream_sample", false)) {
      EXPECT_TRUE(rec["streamed"].get<bool>()) << rec.dump();
      continue;
    }
    ++sample;
    EXPECT_FALSE(rec["streamed"].get<bool>());
    EXPECT_EQ(rec["phase"], "measure");
    EXPECT_EQ(rec["error"], "none");
    EXPECT_EQ(rec["output_tokens"], 8);
    EXPECT_TRUE(chunks_of(rec).empty());
    EXPECT_EQ(rec["id"].get<int>() % 8, 7);  // prompts 7, 15, 23, 31, 39
  }
  EXPECT_EQ(sample, 5);

  const auto s = read_json(dir + "/summary.json");
  EXPECT_EQ(s["completed"], 40);  // throughput counts every request served
  EXPECT_EQ(s["tokenbench"]["requests"]["nonstream_sample"], 5);
  EXPECT_EQ(s["tokenbench"]["requests"]["streamed"], 35);
  EXPECT_EQ(s["tokenbench"]["requests"]["non_streamed"], 0);
  const auto &dist = s["tokenbench"]["distributions"];
  EXPECT_EQ(dist["e2el_ms"]["count"], 35) << dist["e2el_ms"].dump();
  EXPECT_EQ(dist["ttft_ms"]["count"], 35);
  const auto &check = s["tokenbench"]["checks"]["stream_vs_nonstream"];
  EXPECT_EQ(check["streamed"]["count"], 35) << check.dump();
  EXPECT_EQ(check["non_streamed"]["count"], 5);
  // Fixed delays: both take TTFT + 7 gaps (34 ms), on loopback; nothing to
  // flag.
  EXPECT_GE(check["non_streamed"]["e2el_p50_ms"].get<double>(), 34.0);
  EXPECT_GE(check["streamed"]["e2el_p50_ms"].get<double>(), 34.0);
  EXPECT_FALSE(check["flagged"].get<bool>()) << check.dump();
  EXPECT_NE(r.out.find("stream vs non-stream"), std::string::npos) << r.out;
}

TEST(EndToEndStreamSample, OutOfRangeOrWithoutStreamingIsAUsageError) {
  const std::string dir = make_temp_dir("nonstream-sample-bad");
  auto r = run_process(
      run_args("http://127.0.0.1:9", dir, {"--num-prompts", "4", "--nonstream-sample", "5"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--nonstream-sample"), std::string::npos) << r.err;
  r = run_process(run_args("http://127.0.0.1:9", dir,
                           {"--num-prompts", "4", "--nonstream-sample", "2", "--no-stream"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("drop --no-stream"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tokenbench::e2e
