#include "tokenbench/report/console.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../metrics/test_records.h"
#include "tokenbench/report/run_outputs.h"

namespace tokenbench::report {
namespace {

// The line of `text` that starts with "| <label>" (after the border).
std::string row(const std::string& text, const std::string& label) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| " + label + " ", 0) == 0) return line;
  }
  return {};
}

core::RunConfig labelled_config(const std::string& style) {
  core::RunConfig config;
  config.model = "sim-model";
  config.base_url = "http://127.0.0.1:8000";
  config.started_at = "2026-11-30T16:00:00Z";
  config.max_concurrency = 4;
  config.console_style = core::kConsoleStyleNames.parse(style).value();
  config.percentiles = {50, 99.9};
  return config;
}

// A fast server: TTFT 0.5 to 0.8 ms, 0.3 ms between tokens, and a burst of two chunks 1.6 us
// apart in each request (a sub-millisecond run whose small figures must not print as zero).
std::vector<core::RequestRecord> sub_millisecond_run() {
  std::vector<core::RequestRecord> records;
  for (int i = 0; i < 4; ++i) {
    const double sent = i * 0.25;
    const double first = sent + 0.5 + 0.1 * i;
    records.push_back(test_records::streamed_record(
        static_cast<std::uint64_t>(i), sent, sent,
        {{first, 1}, {first + 0.3, 1}, {first + 0.6, 1}, {first + 0.6016, 1}, {first + 0.9, 1}},
        first + 0.95, 32));
  }
  return records;
}

std::string read_golden(const std::string& name) {
  std::ifstream in(std::string(TOKENBENCH_TEST_DATA_DIR) + "/console/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string render(const std::vector<core::RequestRecord>& records, const core::RunConfig& config) {
  metrics::SummaryOptions options;
  options.percentiles = config.percentiles;
  return render_console_report(metrics::summarize(records, options), config);
}

TEST(ConsoleTest, GridTableIsAlignedAndCompactDropsRowRules) {
  const std::string table = render_grid_table({"Key", "Value"}, {{"a", "1"}, {"long key", "22"}});
  EXPECT_EQ(table,
            "+----------+-------+\n"
            "| Key      | Value |\n"
            "+==========+=======+\n"
            "| a        |     1 |\n"
            "+----------+-------+\n"
            "| long key |    22 |\n"
            "+----------+-------+\n");
  EXPECT_EQ(render_grid_table({"Key", "Value"}, {{"a", "1"}, {"long key", "22"}}, {}, true),
            "+----------+-------+\n"
            "| Key      | Value |\n"
            "+==========+=======+\n"
            "| a        |     1 |\n"
            "| long key |    22 |\n"
            "+----------+-------+\n");
}

TEST(ConsoleTest, SignificantCellNeverPrintsANonZeroAsZero) {
  EXPECT_EQ(significant_cell(784.5), "784.50");
  EXPECT_EQ(significant_cell(5.8), "5.80");
  EXPECT_EQ(significant_cell(0.3), "0.300");
  EXPECT_EQ(significant_cell(0.0016), "0.00160");
  EXPECT_EQ(significant_cell(0.00000123), "0.00000123");
  EXPECT_EQ(significant_cell(0), "0");
  EXPECT_EQ(significant_cell(metrics::kUndefined), "-");
}

// Golden files: tests/data/console/*.txt. After an intended change of the layout, regenerate
// them with TOKENBENCH_UPDATE_GOLDEN=1 and read the diff.
void expect_golden(const std::string& text, const std::string& name) {
  if (std::getenv("TOKENBENCH_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(std::string(TOKENBENCH_TEST_DATA_DIR) + "/console/" + name) << text;
  }
  EXPECT_EQ(text, read_golden(name)) << "golden " << name << ":\n" << text;
}

TEST(ConsoleTest, GoldenSubMillisecondRunInEveryStyle) {
  for (const std::string style : {"ms", "compact", "evalscope-s"}) {
    expect_golden(render(sub_millisecond_run(), labelled_config(style)), style + ".txt");
  }
  // The milliseconds table keeps the figures that seconds with four decimals lose.
  const std::string ms = render(sub_millisecond_run(), labelled_config("ms"));
  EXPECT_NE(row(ms, "10%").find("0.00160"), std::string::npos) << row(ms, "10%");
  const std::string s = render(sub_millisecond_run(), labelled_config("evalscope-s"));
  EXPECT_NE(row(s, "10%").find("0.0000"), std::string::npos) << row(s, "10%");
}

TEST(ConsoleTest, RequestedPercentilesAreRowsBesideTheFixedOnes) {
  const std::string text = render(sub_millisecond_run(), labelled_config("ms"));
  for (const char* label :
       {"10%", "25%", "50%", "66%", "75%", "80%", "90%", "95%", "98%", "99%", "99.9%"}) {
    EXPECT_FALSE(row(text, label).empty()) << label;
  }
  EXPECT_LT(text.find("| 99% "), text.find("| 99.9% "));
}

TEST(ConsoleTest, HeaderNamesTheRunAndTokenSources) {
  const std::string text = render(sub_millisecond_run(), labelled_config("ms"));
  EXPECT_EQ(text.rfind("Model sim-model at http://127.0.0.1:8000/v1/chat/completions, run started "
                       "2026-11-30T16:00:00Z\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("Token counts: input from the server's usage (which counts the chat "
                      "template too) for 4; output from the server's usage for 4.\n"),
            std::string::npos)
      << text;
}

TEST(ConsoleTest, EvalscopeColumnsMeanWhatTheyMeanThere) {
  // One request: 10 output tokens, first at 100 ms, last at 190 ms, E2EL 190 ms, 30 prompt
  // tokens. evalscope: Output = 10 / 0.19 s = 52.6316, Total = 40 / 0.19 s = 210.5263; the
  // decode rate is 9 / 0.09 s = 100.
  std::vector<std::pair<double, int>> chunks;
  for (int k = 0; k < 10; ++k) chunks.emplace_back(100 + 10 * k, 1);
  const auto r = test_records::streamed_record(0, 0, 0, chunks, 191, 30);
  const std::string text = render({r}, labelled_config("ms"));
  const std::string p50 = row(text, "50%");
  EXPECT_NE(p50.find("52.6316"), std::string::npos) << p50;
  EXPECT_NE(p50.find("210.5263"), std::string::npos) << p50;
  EXPECT_NE(p50.find("100.0000"), std::string::npos) << p50;
  EXPECT_NE(text.find("| Output (tok/s) | Total (tok/s) | Decode (tok/s) |"), std::string::npos);
}

TEST(ConsoleTest, AllFailedRunIsOneClearAccount) {
  std::vector<core::RequestRecord> records;
  for (int i = 0; i < 3; ++i) {
    records.push_back(test_records::failed_record(static_cast<std::uint64_t>(i), i * 10.0,
                                                  i * 10.0 + 2, core::ErrorClass::kHttp4xx, 404,
                                                  "HTTP 404: {\"detail\":\"Not Found\"}"));
  }
  const std::string text = render(records, labelled_config("ms"));
  expect_golden(text, "all-failed.txt");
  EXPECT_EQ(text.find("Percentile results"), std::string::npos);
  EXPECT_EQ(text.find("Benchmarking summary"), std::string::npos);
  EXPECT_EQ(text.find("client lag"), std::string::npos);
  EXPECT_NE(row(text, "http_4xx (HTTP 404 x3)").find("Not Found"), std::string::npos) << text;
}

TEST(ConsoleTest, UndefinedValuesShowAsDashAndWarningsFollowTheSummary) {
  core::RequestRecord r;
  r.streamed = false;
  r.scheduled = 0;
  r.sent = 0;
  r.done = 500 * test_records::kMs;
  r.prompt_tokens = 10;
  r.output_tokens = 40;
  const std::string text = render_console_report(metrics::summarize({r}, {}), core::RunConfig{});
  const std::string ttft = row(text, "Average time to first token (ms)");
  EXPECT_NE(ttft.find(" - |"), std::string::npos) << ttft;
  EXPECT_NE(text.find("Warning: TTFT undefined: non-streaming run"), std::string::npos);
  EXPECT_LT(text.find("Warning:"), text.find("Percentile results"));
  EXPECT_EQ(text.find("Errors:"), std::string::npos);
  EXPECT_EQ(text.find("goodput"), std::string::npos);
}

}  // namespace
}  // namespace tokenbench::report
