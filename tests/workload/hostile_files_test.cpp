// Hostile local inputs (issue 25, items 6 and 9): a dataset line nested 100,000 deep (nlohmann's
// dump() overflowed the stack), lines longer than --max-line-bytes (read whole before, so
// /dev/zero never ended), each a one-line error naming the file and the line.

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>
#include <string>

#include "tokenbench/core/input_limits.h"
#include "tokenbench/workload/dataset.h"
#include "tokenbench/workload/jobs.h"
#include "tokenbench/workload/length_dist.h"

namespace tokenbench::workload {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// A chat message whose content is nested `depth` deep: dump()ing it recursed once per level.
std::string nested_messages(std::size_t depth) {
  return R"({"messages":[{"role":"user","content":)" + std::string(depth, '[') +
         std::string(depth, ']') + "}]}\n";
}

// The error `load` throws ("(no error)" when none).
template <typename Load>
std::string error_of(Load load) {
  try {
    load();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

// Sets the process's line limit for one test.
struct LineLimit {
  explicit LineLimit(std::int64_t bytes) { core::set_max_line_bytes(bytes); }
  ~LineLimit() { core::set_max_line_bytes(core::kDefaultMaxLineBytes); }
};

DatasetOptions options(const std::string& path) {
  DatasetOptions o;
  o.path = path;
  o.output_len = 8;
  return o;
}

TEST(HostileFiles, DeeplyNestedJsonlLineIsAnErrorNamingTheLine) {
  const std::string path =
      write_temp("deep.jsonl", "{\"prompt\":\"ok\"}\n" + nested_messages(100'000));
  EXPECT_EQ(error_of([&] { load_jsonl_dataset(path, 0); }),
            "dataset " + path +
                " line 2: nested deeper than 256 levels, the limit of JSON documents read (at "
                "byte 291)");
  // 256 levels are read (and then refused for what they hold, not for their depth).
  const std::string ok = write_temp(
      "deep-ok.jsonl", "{\"prompt\":" + std::string(255, '[') + std::string(255, ']') + "}\n");
  EXPECT_EQ(error_of([&] { load_jsonl_dataset(ok, 0); }),
            "dataset " + ok + " line 1: \"prompt\" must be a string");
}

TEST(HostileFiles, DeeplyNestedMooncakeAndShareGptAreErrors) {
  const std::string mooncake = write_temp("deep-mooncake.jsonl", nested_messages(300));
  EXPECT_NE(error_of([&] {
              load_mooncake_dataset(options(mooncake));
            }).find("deep-mooncake.jsonl line 1: nested deeper than 256 levels"),
            std::string::npos);
  const std::string sharegpt =
      write_temp("deep-sharegpt.json", "[\n{\"conversations\":\n" + nested_messages(300) + "}]");
  EXPECT_NE(error_of([&] {
              load_sharegpt_dataset(options(sharegpt));
            }).find("deep-sharegpt.json line 3: nested deeper than 256 levels"),
            std::string::npos)
      << error_of([&] { load_sharegpt_dataset(options(sharegpt)); });
}

TEST(HostileFiles, AJobFileNestedDeepLongOrHugeIsAnErrorNamingTheLine) {
  const std::string ok =
      R"({"job":"a","calls":[{"id":"x","messages":[{"role":"user","content":"hi"}]}]})";
  const std::string deep = write_temp("deep-jobs.jsonl", ok + "\n" + nested_messages(100'000));
  EXPECT_NE(error_of([&] {
              load_job_file(deep, 0, 1);
            }).find("deep-jobs.jsonl line 2: nested deeper than 256 levels"),
            std::string::npos);
  {
    const LineLimit limit(4096);
    const std::string long_line =
        write_temp("long-jobs.jsonl", ok + "\n" + std::string(5000, ' ') + ok + "\n");
    EXPECT_NE(error_of([&] {
                load_job_file(long_line, 0, 1);
              }).find("long-jobs.jsonl line 2 is longer than 4 KiB"),
              std::string::npos);
  }
  // A synthetic message may not ask for more than 2^20 tokens, nor a job for more than 4,096
  // calls: what a line can make the client hold is bounded.
  const std::string huge = write_temp(
      "huge-jobs.jsonl",
      R"({"job":"a","calls":[{"id":"x","messages":[{"role":"tool","tool_call_id":"t","tokens":1099511627776}]}]})"
      "\n");
  EXPECT_EQ(error_of([&] { load_job_file(huge, 0, 1); }),
            "job file " + huge +
                " line 1: job a, call x: message 1 \"tokens\" must be an integer from 1 to "
                "1048576");
  std::string many = R"({"job":"m","calls":[)";
  for (int i = 0; i <= 4096; ++i) {
    many += (i ? "," : "") + std::string(R"({"id":"c)") + std::to_string(i) +
            R"(","messages":[{"role":"user","content":"x"}]})";
  }
  const std::string wide = write_temp("wide-jobs.jsonl", many + "]}\n");
  EXPECT_EQ(error_of([&] { load_job_file(wide, 0, 1); }),
            "job file " + wide + " line 1: job m has 4097 calls, more than the limit of 4096");
}

TEST(HostileFiles, LinesOverTheLimitNameTheirFileAndLine) {
  const LineLimit limit(4096);
  const std::string big(5000, 'w');
  const std::string words = "w w w w\n";
  const std::string jsonl =
      write_temp("long.jsonl", "{\"prompt\":\"ok\"}\n\n{\"prompt\":\"" + big + "\"}\n");
  const std::string tail =
      " is longer than 4 KiB, the limit of --max-line-bytes: is it the right "
      "file? If so, raise --max-line-bytes";
  EXPECT_EQ(error_of([&] { load_jsonl_dataset(jsonl, 0); }), "dataset " + jsonl + " line 3" + tail);
  const std::string lines = write_temp("long.txt", words + big + "\n");
  EXPECT_EQ(error_of([&] { load_lines_dataset(options(lines)); }),
            "dataset " + lines + " line 2" + tail);
  const std::string mooncake = write_temp("long-mooncake.jsonl", big);
  EXPECT_EQ(error_of([&] { load_mooncake_dataset(options(mooncake)); }),
            "dataset " + mooncake + " line 1" + tail);
  // A csv record is bounded from its first line, across the line breaks inside its quotes.
  const std::string csv = write_temp("long.csv", "prompt\nhello\n\"" + big + "\n" + big + "\"\n");
  EXPECT_EQ(error_of([&] { load_csv_dataset(options(csv)); }), "dataset " + csv + " line 3" + tail);
  // Under the limit, the same files are read.
  const LineLimit wider(1 << 20);
  EXPECT_EQ(load_jsonl_dataset(jsonl, 0).size(), 2u);
  EXPECT_EQ(load_csv_dataset(options(csv)).size(), 2u);
}

// The issue's reproduction: this grew to 5 GB and never ended. It ends at the default limit.
TEST(HostileFiles, EmpiricalLengthsFromDevZeroEndAtTheLineLimit) {
  EXPECT_EQ(error_of([] { parse_length_dist("empirical:/dev/zero", "--input-dist"); })
                .rfind("--input-dist 'empirical:/dev/zero': /dev/zero line 1 is longer than 16 "
                       "MiB, the limit of --max-line-bytes",
                       0),
            0u)
      << error_of([] { parse_length_dist("empirical:/dev/zero", "--input-dist"); });
}

}  // namespace
}  // namespace tokenbench::workload
