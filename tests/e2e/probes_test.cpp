// End to end: --probe-rate sends 1-token requests beside the load, outside its concurrency, with
// their own accounting: the load's records and figures never include them.

#include <gtest/gtest.h>

#include "process.h"

namespace tokenbench::e2e {
namespace {

using nlohmann::json;

TEST(Probes, ProbesKeepTheirOwnAccountingBesideTheLoad) {
  SimProcess sim({"--ttft-ms", "30", "--itl-ms", "5", "--seed", "1"});
  const std::string dir = make_temp_dir("probes");
  const auto r =
      run_process(run_args(sim.url(), dir,
                           {"--max-concurrency", "2", "--duration", "3", "--num-prompts", "0",
                            "--output-len", "40", "--input-len", "16", "--probe-rate", "5"}),
                  std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json s = read_json(dir + "/summary.json");
  const json& probes = s["tokenbench"]["probes"];
  // Five a second for about 3 s, all answered.
  EXPECT_GE(probes["sent"].get<int>(), 13) << probes;
  EXPECT_LE(probes["sent"].get<int>(), 17) << probes;
  EXPECT_EQ(probes["failed"], 0) << probes;
  EXPECT_EQ(probes["completed"], probes["sent"]);
  // A probe's first token takes the server's 30 ms: a new user's wait at this load.
  EXPECT_GE(probes["ttft_ms"]["p50"].get<double>(), 29.0) << probes;
  EXPECT_LT(probes["ttft_ms"]["p50"].get<double>(), 80.0) << probes;
  // The load's own requests: every record is one of them (40 tokens), none a probe, and the
  // load kept its concurrency of 2 while the probes went beside it.
  const auto records = read_records(dir + "/requests.jsonl");
  EXPECT_EQ(static_cast<int>(records.size()), s["completed"].get<int>() + s["failed"].get<int>());
  for (const auto& rec : records) EXPECT_EQ(rec["output_tokens"], 40);
  EXPECT_LE(s["tokenbench"]["max_concurrency_observed"].get<int>(), 2);
  EXPECT_NE(r.out.find("Probes (5/s beside the load"), std::string::npos) << r.out;
  // `report` rebuilds them from telemetry.jsonl.
  ASSERT_EQ(run_process({TOKENBENCH_BINARY, "report", dir}).exit_code, 0);
  EXPECT_EQ(read_json(dir + "/summary.json")["tokenbench"]["probes"], probes);
}

TEST(Probes, AnApiProbesDoNotSpeakIsRefused) {
  const auto r = run_process({TOKENBENCH_BINARY, "run", "--num-prompts", "1", "--api",
                              "anthropic-messages", "--probe-rate", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--probe-rate sends OpenAI chat or completions requests"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace tokenbench::e2e
