#include "tokenbench/report/run_outputs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tokenbench/records/results_dir.h"

namespace tokenbench::report {
namespace {

TEST(RunOutputs, InvalidUtf8InServerTextNeverLosesTheSummary) {
  const std::string dir = ::testing::TempDir() + "run-outputs-utf8";
  std::filesystem::create_directories(dir);
  core::RequestRecord ok;
  ok.scheduled = 0;
  ok.sent = 0;
  ok.first_token = 10'000'000;
  ok.last_token = 20'000'000;
  ok.done = 21'000'000;
  ok.chunks = {{10'000'000, 1}, {20'000'000, 1}};
  ok.output_tokens = 2;
  core::RequestRecord bad = ok;
  bad.id = 1;
  bad.error = core::ErrorClass::kHttp5xx;
  bad.http_status = 500;
  bad.error_message = "HTTP 500: \xe6\x9c\x8d\xe5\x8a\xa1 broken \xff byte";
  const auto out = write_run_outputs(dir, {ok, bad}, core::RunConfig{});
  EXPECT_EQ(out.summary.failed, 1);
  const auto j = nlohmann::json::parse(records::read_text_file(dir + "/summary.json"));
  EXPECT_EQ(j["completed"], 1);
  EXPECT_EQ(j["failed"], 1);
}

}  // namespace
}  // namespace tokenbench::report
