// requests.jsonl read back under the input limits (issue 25, items 6 and 9): a line nested past
// core::kMaxJsonDepth, and a line (an 80 MB "chunks" field took `report` to 1.45 GB) longer than
// --max-line-bytes, are one-line errors naming the file and the line, read line by line.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "../metrics/test_records.h"
#include "tokenbench/core/input_limits.h"
#include "tokenbench/records/records_io.h"

namespace tokenbench::records {
namespace {

class RecordsLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("tokenbench_limits_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".jsonl"))
                .string();
  }
  void TearDown() override {
    std::filesystem::remove(path_);
    core::set_max_line_bytes(core::kDefaultMaxLineBytes);
  }
  // The message read_records_jsonl throws for a file of `text` ("" when it throws nothing).
  std::string read_error(const std::string& text) {
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << text;
    try {
      read_records_jsonl(path_);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }
  std::string path_;
};

std::string first_lines() {
  const auto records = test_records::hand_built_run();
  return record_to_jsonl_line(records[0]) + record_to_jsonl_line(records[1]);
}

TEST_F(RecordsLimitsTest, ALineNestedPastTheLimitIsDamagedEvenWhenLast) {
  // An unknown field is ignored, however it is nested: a record of 300 levels was read.
  const std::string deep =
      R"({"id":9,"phase":"measure","x":)" + std::string(300, '[') + std::string(300, ']') + "}\n";
  EXPECT_EQ(read_error(first_lines() + deep),
            path_ +
                " line 3: nested deeper than 256 levels, the limit of JSON documents read (at "
                "byte 285); the file is damaged or was edited \u2014 rerun, or fix the line");
  EXPECT_EQ(read_error(first_lines() + R"({"id":9,"x":[[1]]})"
                                       "\n"),
            "");
}

TEST_F(RecordsLimitsTest, ALineOverTheLimitNamesItsLineAndTheFlag) {
  core::set_max_line_bytes(64 * 1024);
  // A chunks field of 100 KB (the issue's was 80 MB); the line is not read whole.
  const std::string huge = R"({"id":7,"chunks":")" + std::string(100'000, 'A') + "\"}\n";
  EXPECT_EQ(read_error(first_lines() + huge + first_lines()),
            path_ +
                " line 3 is longer than 64 KiB, the limit of --max-line-bytes: is it the right "
                "file? If so, raise --max-line-bytes");
  // The same text in memory (a rank's records; a zstd file decompressed) is checked alike.
  try {
    parse_records_jsonl(first_lines() + huge, "rank 2's records");
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("rank 2's records line 3 is longer than 64 KiB", 0), 0u)
        << e.what();
  }
}

TEST_F(RecordsLimitsTest, StreamedReadKeepsTheCutFinalLineRule) {
  const std::string whole = first_lines();
  const std::string cut = whole + R"({"id":5,"pha)";
  EXPECT_EQ(read_error(cut), "");
  RecordsReadReport report;
  EXPECT_EQ(read_records_jsonl(path_, &report).size(), 2u);
  EXPECT_EQ(report.skipped_lines, 1);
  EXPECT_NE(report.warning.find(path_ + " line 3: not valid JSON"), std::string::npos)
      << report.warning;
  // Blank lines and CRLF ends, as before.
  EXPECT_EQ(read_error("\r\n" + whole + "\n  \n"), "");
  EXPECT_EQ(read_records_jsonl(path_, &report).size(), 2u);
  EXPECT_EQ(report.skipped_lines, 0);
}

}  // namespace
}  // namespace tokenbench::records
