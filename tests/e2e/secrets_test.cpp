// End to end (issue 25): credentials go only where they belong and are written nowhere. The API
// key reaches only the target's origin; a credential in the endpoint's query string or the
// request body is sent but every output says <redacted>, and a replay must give it again; a key
// too short to be real does not cut tokenbench's own words.

#include <gtest/gtest.h>

#include <filesystem>

#include "capture_server.h"
#include "process.h"

namespace tokenbench::e2e {
namespace {

namespace fs = std::filesystem;

// Every output file of `dir` (recursively) and the process's streams, as one text per name.
std::vector<std::pair<std::string, std::string>> everything_written(const std::string& dir,
                                                                    const ProcessResult& r) {
  std::vector<std::pair<std::string, std::string>> out = {{"stdout", r.out}, {"stderr", r.err}};
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.emplace_back(e.path().string(), slurp(e.path().string()));
  }
  return out;
}

TEST(EndToEndSecrets, TheKeyGoesOnlyToTheTargetsOriginUnlessAllowed) {
  const std::string key = "sk-metrics-origin-4242";
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.5", "--api-key", key});
  CaptureServer metrics;  // another port: another origin
  const auto scrapes_with_key = [&] {
    std::size_t n = 0;
    for (const auto& r : metrics.requests_to("GET /metrics")) {
      n += r.find(key) != std::string::npos || r.find("uthorization") != std::string::npos;
    }
    return n;
  };
  const std::vector<std::string> flags = {
      "--num-prompts", "2",   "--output-len",     "3",
      "--gpu-metrics", "off", "--server-metrics", metrics.url() + "/metrics"};
  auto r = run_process(run_args(sim.url(), make_temp_dir("secrets_origin"), flags),
                       std::chrono::seconds(60), {{"OPENAI_API_KEY", key}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_FALSE(metrics.requests_to("GET /metrics").empty());
  EXPECT_EQ(scrapes_with_key(), 0u);
  // The capture server answers 400: the warning says the key was withheld and how to send it.
  EXPECT_NE(r.err.find("--server-metrics-auth sends it"), std::string::npos) << r.err;

  r = run_process(run_args(sim.url(), make_temp_dir("secrets_origin_auth"),
                           with(flags, {"--server-metrics-auth"})),
                  std::chrono::seconds(60), {{"OPENAI_API_KEY", key}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(scrapes_with_key(), 0u);
}

TEST(EndToEndSecrets, QueryAndBodyCredentialsAreSentButNeverWritten) {
  const std::string in_query = "q-secret-value-0815";
  const std::string in_body = "b-secret-value-4711";
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.5"});
  const std::string dir = make_temp_dir("secrets_query_body");
  const auto r = run_process(
      run_args(sim.url(), dir,
               {"--num-prompts", "3", "--output-len", "3", "--gpu-metrics", "off", "--endpoint",
                "/v1/chat/completions?api-key=" + in_query, "--extra-body",
                R"({"api_key":")" + in_body + R"(","top_k":5})", "--export", "csv"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& [name, text] : everything_written(dir, r)) {
    EXPECT_EQ(text.find(in_query), std::string::npos) << name;
    EXPECT_EQ(text.find(in_body), std::string::npos) << name;
  }
  const std::string yaml = slurp(dir + "/config.yaml");
  EXPECT_NE(yaml.find("api-key=<redacted>"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find(R"(\"api_key\":\"<redacted>\")"), std::string::npos) << yaml;

  // The replay cannot send "<redacted>": it names the value to give again.
  auto replay = run_process({TOKENBENCH_BINARY, "run", "--config", dir + "/config.yaml",
                             "--output-dir", make_temp_dir("secrets_replay") + "/out"});
  EXPECT_EQ(replay.exit_code, 1) << replay.err;
  EXPECT_NE(replay.err.find("--endpoint has the query parameter 'api-key' as <redacted>"),
            std::string::npos)
      << replay.err;
  // Given again beside the file, it replays as far as the body, which is named next.
  replay = run_process({TOKENBENCH_BINARY, "run", "--config", dir + "/config.yaml", "--endpoint",
                        "/v1/chat/completions?api-key=" + in_query, "--output-dir",
                        make_temp_dir("secrets_replay2") + "/out"});
  EXPECT_EQ(replay.exit_code, 1) << replay.err;
  EXPECT_NE(replay.err.find("--extra-body has the field 'api_key' as <redacted>"),
            std::string::npos)
      << replay.err;
}

TEST(EndToEndSecrets, AShortKeyLeavesTokenbenchsWordsWhole) {
  // A prompt over the context length: the server's error says "maximum context length".
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "0.5", "--max-model-len", "64"});
  const auto r = run_process(run_args(sim.url(), make_temp_dir("secrets_short_key"),
                                      {"--num-prompts", "3", "--input-len", "200", "--output-len",
                                       "3", "--gpu-metrics", "off", "--server-metrics", "off"}),
                             std::chrono::seconds(60), {{"OPENAI_API_KEY", "x"}});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("maximum context length"), std::string::npos) << all;
  EXPECT_EQ(all.find("ma<redacted>imum"), std::string::npos) << all;
  EXPECT_NE(r.err.find("the API key from $OPENAI_API_KEY is 1 character long, too short to be a "
                       "real key"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace tokenbench::e2e
