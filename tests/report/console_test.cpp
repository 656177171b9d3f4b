#include "tokenbench/report/console.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "../metrics/test_records.h"

namespace tokenbench::report {
namespace {

std::string hand_built_report() {
  metrics::SummaryOptions options;
  options.slo = metrics::parse_slo({"ttft:150"});
  core::RunConfig config;
  config.max_concurrency = 4;
  return render_console_report(metrics::summarize(test_records::hand_built_run(), options), config);
}

// The line of `text` that starts with "| <label>" (after the border).
std::string row(const std::string& text, const std::string& label) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| " + label + " ", 0) == 0) return line;
  }
  return {};
}

TEST(ConsoleTest, GridTableIsAligned) {
  const std::string table = render_grid_table({"Key", "Value"}, {{"a", "1"}, {"long key", "22"}});
  const std::string expected =
      "+----------+-------+\n"
      "| Key      | Value |\n"
      "+==========+=======+\n"
      "| a        |     1 |\n"
      "+----------+-------+\n"
      "| long key |    22 |\n"
      "+----------+-------+\n";
  EXPECT_EQ(table, expected);
}

TEST(ConsoleTest, SummaryTableHasEvalscopeRows) {
  const std::string text = hand_built_report();
  EXPECT_NE(text.find("Benchmarking summary:"), std::string::npos);
  EXPECT_NE(row(text, "Time taken for tests (s)").find("0.4000"), std::string::npos);
  EXPECT_NE(row(text, "Number of concurrency").find(" 4 "), std::string::npos);
  EXPECT_NE(row(text, "Request rate (req/s)").find("inf"), std::string::npos);
  EXPECT_NE(row(text, "Total requests").find(" 3 "), std::string::npos);
  EXPECT_NE(row(text, "Succeed requests").find(" 2 "), std::string::npos);
  EXPECT_NE(row(text, "Failed requests").find(" 1 "), std::string::npos);
  EXPECT_NE(row(text, "Output token throughput (tok/s)").find("17.5000"), std::string::npos);
  EXPECT_NE(row(text, "Total token throughput (tok/s)").find("92.5000"), std::string::npos);
  EXPECT_NE(row(text, "Request throughput (req/s)").find("5.0000"), std::string::npos);
  EXPECT_NE(row(text, "Request goodput (req/s)").find("2.5000"), std::string::npos);
  EXPECT_NE(row(text, "Average latency (s)").find("0.1900"), std::string::npos);
  EXPECT_NE(row(text, "Average time to first token (s)").find("0.1500"), std::string::npos);
  EXPECT_NE(row(text, "Average time per output token (s)").find("0.0150"), std::string::npos);
  EXPECT_NE(row(text, "Average inter-token latency (s)").find("0.0160"), std::string::npos);
  EXPECT_NE(row(text, "Average input tokens per request").find("15.0000"), std::string::npos);
  EXPECT_NE(row(text, "Average output tokens per request").find("3.5000"), std::string::npos);
}

TEST(ConsoleTest, PercentileTableHasFixedRowsAndColumns) {
  const std::string text = hand_built_report();
  EXPECT_NE(text.find("Percentile results:"), std::string::npos);
  for (const char* header : {"Percentiles", "TTFT (s)", "ITL (s)", "TPOT (s)", "Latency (s)",
                             "Input tokens", "Output tokens", "Output (tok/s)", "Total (tok/s)"}) {
    EXPECT_NE(text.find(header), std::string::npos) << header;
  }
  for (const char* label : {"10%", "25%", "50%", "66%", "75%", "80%", "90%", "95%", "98%", "99%"}) {
    EXPECT_FALSE(row(text, label).empty()) << label;
  }
  // 99%: TTFT 199 ms, ITL 20 ms, TPOT 19.9 ms, latency 258.6 ms, 19.9 input and 3.99 output
  // tokens, per-request output rates (50 and 100 tok/s) -> 99.5.
  const std::string p99 = row(text, "99%");
  EXPECT_NE(p99.find("0.1990"), std::string::npos) << p99;
  EXPECT_NE(p99.find("0.0200"), std::string::npos) << p99;
  EXPECT_NE(p99.find("0.0199"), std::string::npos) << p99;
  EXPECT_NE(p99.find("0.2586"), std::string::npos) << p99;
  EXPECT_NE(p99.find("19.90"), std::string::npos) << p99;
  EXPECT_NE(p99.find("99.5000"), std::string::npos) << p99;
  // 50% of input tokens (10, 20) is 15, printed as an integer.
  EXPECT_NE(row(text, "50%").find(" 15 "), std::string::npos) << row(text, "50%");
}

TEST(ConsoleTest, ErrorBreakdownWhenRequestsFailed) {
  const std::string text = hand_built_report();
  EXPECT_NE(text.find("Errors:"), std::string::npos);
  EXPECT_NE(row(text, "http_5xx").find("Service Unavailable"), std::string::npos);
  EXPECT_FALSE(row(text, "HTTP 503").empty());
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
  const std::string ttft = row(text, "Average time to first token (s)");
  EXPECT_NE(ttft.find(" - |"), std::string::npos) << ttft;
  EXPECT_NE(row(text, "50%").find(" - |"), std::string::npos);
  EXPECT_NE(text.find("Warning: TTFT undefined: non-streaming run"), std::string::npos);
  EXPECT_LT(text.find("Warning:"), text.find("Percentile results:"));
  EXPECT_EQ(text.find("Errors:"), std::string::npos);
  EXPECT_EQ(text.find("goodput"), std::string::npos);
}

}  // namespace
}  // namespace tokenbench::report
