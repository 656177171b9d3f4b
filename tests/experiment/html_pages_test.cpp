// An experiment root's page data: what each kind of root stored, the links to its runs' pages,
// and each run's distributions read from its requests.jsonl.

#include "tokenbench/experiment/html_pages.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../metrics/test_records.h"
#include "tokenbench/records/records_io.h"
#include "tokenbench/records/results_dir.h"

namespace tokenbench::experiment {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class HtmlPagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = ::testing::TempDir() + "tokenbench-html-pages-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& name, const std::string& text) {
    fs::create_directories(fs::path(root_ + "/" + name).parent_path());
    std::ofstream(root_ + "/" + name) << text;
  }
  // Three streamed requests with TTFT 10, 20 and 30 ms in DIR/requests.jsonl, and a warmup one.
  void write_requests(const std::string& dir) {
    std::string lines;
    for (int i = 0; i < 3; ++i) {
      const double first = 10.0 * (i + 1);
      lines += records::record_to_jsonl_line(
          test_records::streamed_record(i, 0, 0, {{first, 1}, {first + 2, 1}}, first + 3, 16));
    }
    auto warm = test_records::streamed_record(9, 0, 0, {{1, 1}}, 2, 16);
    warm.phase = core::Phase::kWarmup;
    lines += records::record_to_jsonl_line(warm);
    write(dir + "/requests.jsonl", lines);
  }
  std::string root_;
};

TEST_F(HtmlPagesTest, SweepLevelsCarryTheirLoadLinksCurvesAndMarks) {
  const json sweep = {{"levels",
                       {{{"dir", "c1"},
                         {"max_concurrency", 1},
                         {"request_rate", "inf"},
                         {"complete", true},
                         {"meets_slo", true},
                         {"request_throughput", 10.5},
                         {"p95_ttft_ms", 25.0},
                         {"tokenbench", {{"large", "left out"}}}},
                        {{"dir", "c4-r2"},
                         {"max_concurrency", 4},
                         {"request_rate", 2.0},
                         {"complete", false},
                         {"meets_slo", false},
                         {"request_throughput", 30.0}}}},
                      {"knee", {{"index", 1}, {"dir", "c4-r2"}}},
                      {"best", {{"index", 0}, {"dir", "c1"}}},
                      {"slo", {"p95_ttft_ms<=30"}},
                      {"canceled", false}};
  write("sweep.json", sweep.dump());
  write("config.yaml", "target:\n  base_url: http://user:secret@host:8000\n");
  write_requests("c1");

  const json data = experiment_report_data(root_);
  EXPECT_EQ(data["kind"], "sweep");
  ASSERT_EQ(data["levels"].size(), 2u);
  const json& c1 = data["levels"][0];
  EXPECT_EQ(c1["label"], "concurrency 1");
  EXPECT_EQ(c1["href"], "./c1/report.html");
  EXPECT_TRUE(data["levels"][1]["href"].is_null());  // c4-r2 has no directory: no link
  EXPECT_EQ(c1["request_throughput"], 10.5);
  EXPECT_EQ(c1["p95_ttft_ms"], 25.0);
  EXPECT_FALSE(c1.contains("tokenbench"));  // only the figures the page draws
  // The measured requests' TTFT CDF: 10, 20, 30 ms at 1/3, 2/3, 1 (the warmup one left out).
  EXPECT_EQ(c1["cdfs"]["TTFT"]["n"], 3);
  EXPECT_EQ(c1["cdfs"]["TTFT"]["x"], json({10.0, 20.0, 30.0}));
  EXPECT_DOUBLE_EQ(c1["cdfs"]["TTFT"]["y"][0].get<double>(), 1.0 / 3);
  EXPECT_EQ(c1["cdfs"]["E2EL"]["x"], json({12.0, 22.0, 32.0}));
  const json& c4 = data["levels"][1];
  EXPECT_EQ(c4["label"], "concurrency 4, rate 2.0");
  EXPECT_EQ(c4["complete"], false);
  EXPECT_TRUE(c4["cdfs"].empty());  // no requests.jsonl: no curves, no error
  EXPECT_EQ(data["knee"]["index"], 1);
  EXPECT_EQ(data["best"]["dir"], "c1");
  EXPECT_EQ(data["slo"][0], "p95_ttft_ms<=30");
  EXPECT_EQ(data["config_yaml"].get<std::string>().find("secret"), std::string::npos);

  ASSERT_TRUE(write_experiment_report(root_));
  const std::string page = records::read_text_file(root_ + "/report.html");
  EXPECT_NE(page.find("\"kind\":\"sweep\""), std::string::npos);
  EXPECT_NE(page.find("tb.pages.sweep"), std::string::npos);
}

TEST_F(HtmlPagesTest, ComparisonTargetsAreFoundUnderTheRootWhereverTheRunWasStarted) {
  const json compare = {{"targets",
                         {{{"name", "fast"}, {"dir", "elsewhere/cmp/fast"}, {"rank", 1}},
                          {{"name", "<b>slow</b>"}, {"dir", "elsewhere/cmp/slow"}, {"rank", 2}}}},
                        {"weights", {{"median_ttft_ms", 1.0}}}};
  write("compare.json", compare.dump());
  write_requests("fast");
  const json data = experiment_report_data(root_);
  EXPECT_EQ(data["kind"], "compare");
  EXPECT_EQ(data["targets"][0]["href"], "./fast/report.html");
  EXPECT_TRUE(data["targets"][1]["href"].is_null());
  EXPECT_EQ(data["targets"][0]["cdfs"]["TTFT"]["n"], 3);
  EXPECT_TRUE(data["targets"][1]["cdfs"].empty());
  ASSERT_TRUE(write_experiment_report(root_));
  const std::string page = records::read_text_file(root_ + "/report.html");
  EXPECT_EQ(page.find("<b>slow"), std::string::npos);  // a name is data, escaped
  EXPECT_NE(page.find("\\u003cb\\u003eslow"), std::string::npos);
}

TEST_F(HtmlPagesTest, SearchProbesLinkTheirPagesAndARunIsNoExperiment) {
  write("search.json", json({{"vary", "max-concurrency"},
                             {"probes", {{{"dir", "conc-2"}, {"value", 2.0}, {"met", true}}}},
                             {"answer", {{"value", 2.0}, {"sentence", "s"}}}})
                           .dump());
  const std::string run = root_ + "/conc-2";
  fs::create_directories(run);
  const json data = experiment_report_data(root_);
  EXPECT_EQ(data["kind"], "search");
  EXPECT_EQ(data["probes"][0]["href"], "./conc-2/report.html");
  EXPECT_EQ(data["answer"]["value"], 2.0);

  EXPECT_TRUE(experiment_report_data(run).is_null());
  EXPECT_FALSE(write_experiment_report(run));
  EXPECT_FALSE(fs::exists(run + "/report.html"));
}

// Issue 25: a tampered sweep.json put a javascript: link in report.html. A level's link is a
// relative path to a directory inside the results directory; anything else is text.
TEST_F(HtmlPagesTest, TamperedLevelDirectoriesGetNoLink) {
  const std::vector<std::string> dirs = {"javascript:alert(1)",    "..", "/etc", "../outside",
                                         "https://evil.example/x", "c1"};
  json levels = json::array();
  for (const auto& d : dirs) levels.push_back({{"dir", d}, {"max_concurrency", 1}});
  fs::create_directories(root_ + "/javascript:alert(1)");
  fs::create_directories(root_ + "/c1");
  write("sweep.json", json({{"levels", levels}}).dump());
  const json data = experiment_report_data(root_);
  ASSERT_EQ(data["levels"].size(), dirs.size());
  for (std::size_t i = 0; i + 1 < dirs.size(); ++i) {
    EXPECT_TRUE(data["levels"][i]["href"].is_null()) << dirs[i];
  }
  EXPECT_EQ(data["levels"].back()["href"], "./c1/report.html");
  ASSERT_TRUE(write_experiment_report(root_));
  const std::string page = records::read_text_file(root_ + "/report.html");
  EXPECT_EQ(page.find("\"href\":\"javascript"), std::string::npos);
}

// A server-configuration sweep's root: each configuration links to its own sweep, each level
// to its page two directories down; a configuration or level that is not a plain directory
// inside the root gets no link.
TEST_F(HtmlPagesTest, ServeSweepLinksConfigurationsAndTheirLevels) {
  fs::create_directories(root_ + "/seqs=2/c1");
  fs::create_directories(root_ + "/seqs=16/c1");
  const json sweep = {
      {"kind", "serve_sweep"},
      {"configurations",
       {{{"dir", "seqs=2"}, {"status", "complete"}, {"best_level", "c1"}},
        {{"dir", "seqs=16"}, {"status", "complete"}},
        {{"dir", "../x"}, {"status", "failed"}, {"error", "exited"}, {"log_tail", "oops\n"}}}},
      {"levels",
       {{{"config", "seqs=2"},
         {"level", "c1"},
         {"dir", "seqs=2/c1"},
         {"max_concurrency", 1},
         {"request_throughput", 5.0},
         {"pareto", true}},
        {{"config", "seqs=16"},
         {"level", "c1"},
         {"dir", "seqs=16/c1"},
         {"max_concurrency", 1},
         {"request_throughput", 7.0},
         {"pareto", false}},
        {{"config", "seqs=16"}, {"level", ".."}, {"dir", "seqs=16/.."}}}},
      {"best", {{"config", "seqs=16"}, {"level", "c1"}, {"dir", "seqs=16/c1"}}},
      {"slo", json::array()}};
  write("sweep.json", sweep.dump());
  const json data = experiment_report_data(root_);
  EXPECT_EQ(data["kind"], "serve_sweep");
  ASSERT_EQ(data["configurations"].size(), 3u);
  EXPECT_EQ(data["configurations"][0]["href"], "./seqs=2/report.html");
  EXPECT_TRUE(data["configurations"][2]["href"].is_null());
  EXPECT_EQ(data["configurations"][2]["log_tail"], "oops\n");
  ASSERT_EQ(data["levels"].size(), 3u);
  EXPECT_EQ(data["levels"][0]["href"], "./seqs=2/c1/report.html");
  EXPECT_EQ(data["levels"][1]["request_throughput"], 7.0);
  EXPECT_EQ(data["levels"][0]["pareto"], true);
  EXPECT_TRUE(data["levels"][2]["href"].is_null());
  EXPECT_EQ(data["best"]["config"], "seqs=16");
  ASSERT_TRUE(write_experiment_report(root_));
}

}  // namespace
}  // namespace tokenbench::experiment
