// End to end: --prefix-hit-rate's prompts against serve-sim's prefix cache, the ideal hit rate
// beside the server's, and the flags' one-line errors.

#include <gtest/gtest.h>

#include <tuple>

#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

TEST(EndToEndPrefixCache, ARequestedHitRateIsTheIdealOneAndServeSimsCacheHoldsIt) {
  SimProcess sim({"--preset", "zero", "--enable-prefix-caching", "--block-size", "16"});
  const std::string dir = make_temp_dir("prefix-hit-rate");
  const auto r = run_process(run_args(
      sim.url(), dir,
      {"--prefix-hit-rate", "0.6", "--num-prompts", "200", "--input-len", "256", "--range-ratio",
       "0.5", "--output-len", "4", "--max-concurrency", "1", "--gpu-metrics", "off"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json summary = read_json(dir + "/summary.json");
  const json& cache = summary["tokenbench"]["prefix_cache"];
  ASSERT_TRUE(cache["ideal"].is_object()) << cache.dump();
  EXPECT_NEAR(cache["ideal"]["hit_rate"].get<double>(), 0.6, 0.01) << cache.dump();
  // One request at a time and an unlimited cache: the server holds what the ideal cache does,
  // save the last token of a prompt found whole (a server always computes one).
  EXPECT_NEAR(cache["hit_rate"].get<double>(), 0.6, 0.02) << cache.dump();
  EXPECT_LE(cache["hit_rate"].get<double>(), cache["ideal"]["hit_rate"].get<double>() + 1e-9);
  EXPECT_NE(r.out.find("an ideal cache (unlimited, --cache-block) would have held 6"),
            std::string::npos)
      << r.out;
  // The server's /metrics counted the same hits as the replies' usage.
  EXPECT_NE(r.out.find("prefix cache: the server counted"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(": they agree"), std::string::npos) << r.out;
}

// A second run of the same prompts finds the first run's blocks still cached: its hit rate is
// above what its own prompts could reach. --reset-prefix-cache empties serve-sim's cache first
// (POST /reset_prefix_cache), so the third run's hit rate is its own again; --profile's
// /start_profile and /stop_profile are accepted.
TEST(EndToEndPrefixCache, ResetPrefixCacheMakesARunsHitRateItsOwn) {
  SimProcess sim({"--preset", "zero", "--enable-prefix-caching"});
  const auto run = [&sim](const std::string& name, std::vector<std::string> extra) {
    const std::string dir = make_temp_dir(name);
    const auto r =
        run_process(run_args(sim.url(), dir,
                             with({"--num-prompts", "20", "--max-concurrency", "1",
                                   "--random-prefix-len", "256", "--input-len", "64", "--seed", "3",
                                   "--server-metrics", "off", "--gpu-metrics", "off"},
                                  extra)));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const json cache = read_json(dir + "/summary.json")["tokenbench"]["prefix_cache"];
    return std::make_tuple(cache["hit_rate"].get<double>(),
                           cache["ideal"]["hit_rate"].get<double>(), r.err);
  };
  const auto [first, ideal, err1] = run("reset-1", {});
  EXPECT_NEAR(first, ideal, 1e-9);  // a cold cache holds what the ideal one does
  const auto [warm, ideal2, err2] = run("reset-2", {});
  EXPECT_GT(warm, ideal2 + 0.1);  // the first run's blocks were still there
  const auto [reset, ideal3, err3] = run("reset-3", {"--reset-prefix-cache", "--profile"});
  EXPECT_NEAR(reset, first, 1e-9);
  EXPECT_EQ(err3.find("NOT reset"), std::string::npos) << err3;
  EXPECT_EQ(err3.find("warning"), std::string::npos) << err3;  // the profile endpoints answered
}

TEST(EndToEndPrefixCache, BadFlagsGetOneLine) {
  const std::string dir = make_temp_dir("prefix-bad");
  for (const auto& [args, words] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--prefix-hit-rate", "1.5"}, "--prefix-hit-rate 1.5 is out of range: give 0 to 1"},
           {{"--prefix-hit-rate", "0.5", "--dataset", "fixed", "--prompt", "x"},
            "shapes --dataset random's prompts"},
           {{"--prefix-hit-rate", "0.5", "--random-prefix-len", "8"},
            "leave out --random-prefix-len"},
           {{"--prefix-hit-rate", "0.5", "--cache-block", "0"}, "leave out --cache-block 0"},
           {{"--cache-block", "100000"}, "give 0 to 65536 tokens"}}) {
    auto all = args;
    all.insert(all.end(), {"--num-prompts", "1"});
    const auto r = run_process(run_args("http://127.0.0.1:9", dir, all));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace tokenbench::e2e
