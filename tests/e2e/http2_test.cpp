// End to end: `tokenbench run --http2` against a scripted h2c server (tests/client/h2_server.h,
// nghttp2's server API) that speaks no HTTP/1.1: the preflight and the load both go over HTTP/2,
// streams share connections up to --http2-streams, and the flags' misuse gets one-line errors.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>

#include "h2_server.h"
#include "process.h"

namespace tokenbench::e2e {
namespace {

using namespace std::chrono_literals;

testing::H2Script paced_script() {
  testing::H2Script script;
  const std::string chunk = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n";
  for (int i = 0; i < 4; ++i) script.pieces.push_back({chunk, 2ms});
  script.pieces.push_back({"data: [DONE]\n\n", 0ms});
  return script;
}

TEST(Http2Run, StreamsShareConnectionsAndKeepKernelStamps) {
  testing::H2Server server(paced_script());
  const std::string dir = make_temp_dir("http2-run");
  const auto r = run_process(
      run_args(server.url(), dir,
               {"--model", "m", "--num-prompts", "12", "--input-len", "8", "--output-len", "4",
                "--max-concurrency", "6", "--http2", "--http2-streams", "3"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir + "/summary.json");
  EXPECT_EQ(summary["completed"].get<int>(), 12) << summary.dump();
  EXPECT_EQ(summary["failed"].get<int>(), 0);
  const auto records = read_records(dir + "/requests.jsonl");
  ASSERT_EQ(records.size(), 12u);
  for (const auto& rec : records) {
    EXPECT_EQ(rec.value("stamps", "user"), "kernel") << rec.dump();
    EXPECT_EQ(chunks_of(rec).size(), 4u) << rec.dump();
  }
  // 6 in flight, 3 streams a connection.
  EXPECT_EQ(server.max_open_streams(), 3);
  EXPECT_GE(server.requests(), 13);  // the preflight asked over HTTP/2 too
  EXPECT_NE(slurp(dir + "/config.yaml").find("http2: true"), std::string::npos);

  // The run's config.yaml repeats it: HTTP/2, 3 streams a connection.
  const std::string again = make_temp_dir("http2-again");
  const auto r2 = run_process({TOKENBENCH_BINARY, "run", "--config", dir + "/config.yaml",
                               "--output-dir", again, "--quiet"});
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_EQ(read_json(again + "/summary.json")["completed"].get<int>(), 12);
  EXPECT_NE(slurp(again + "/config.yaml").find("http2_streams: 3"), std::string::npos);
}

TEST(Http2Run, CheckSpeaksHttp2Too) {
  testing::H2Server server(paced_script());
  const auto r = run_process(
      {TOKENBENCH_BINARY, "check", "--base-url", server.url(), "--model", "m", "--http2"});
  EXPECT_NE(r.out.find("stream"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find(" --http2\n"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(Http2Run, AnHttp2OnlyServerAskedInHttp11SuggestsTheFlag) {
  testing::H2Server server(paced_script());
  const auto r = run_process(run_args(server.url(), make_temp_dir("http2-hint"), {"--model", "m"}));
  EXPECT_EQ(r.exit_code, 2);  // nothing measured: the server cannot be reached
  EXPECT_NE(r.err.find("add --http2"), std::string::npos) << r.err;
}

TEST(Http2Run, MisusedFlagsGetOneLineErrors) {
  const std::string dir = make_temp_dir("http2-errors");
  auto r = run_process(run_args("http://127.0.0.1:9", dir, {"--http2-streams", "4"}));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--http2-streams 4 needs --http2"), std::string::npos) << r.err;
  r = run_process(run_args("http://127.0.0.1:9", dir, {"--http2", "--transport", "curl"}));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  if (r.err.find("libcurl 7.") != std::string::npos) {
    // Debian 12's libcurl: h2c through it is refused, with the remedy.
    EXPECT_NE(r.err.find("drop --transport curl"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace tokenbench::e2e
