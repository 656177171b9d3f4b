// The bounds on what is read from files and servers: JSON nesting (core/json_parse.h) and the
// longest line (core/input_limits.h).

#include "tokenbench/core/input_limits.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>

#include "tokenbench/core/json_parse.h"

namespace tokenbench::core {
namespace {

std::string nested(std::size_t depth, const std::string& inner = "1") {
  return std::string(depth, '[') + inner + std::string(depth, ']');
}

TEST(JsonShapeTest, CountsNestingOutsideStrings) {
  EXPECT_EQ(json_shape("1").depth, 0u);
  EXPECT_EQ(json_shape("[]").depth, 1u);
  EXPECT_EQ(json_shape(R"([{"a":[1]}])").depth, 3u);
  // Brackets inside strings, escaped quotes and backslashes are text.
  EXPECT_EQ(json_shape(R"({"a":"[[[[\"[[[\\","b":[]})").depth, 2u);
  EXPECT_EQ(json_shape(nested(256)).depth, 256u);
  const JsonShape deep = json_shape(nested(100'000));
  EXPECT_EQ(deep.depth, kMaxJsonDepth + 1);  // the scan stops there
  EXPECT_EQ(deep.too_deep_at, kMaxJsonDepth);
}

TEST(JsonShapeTest, ValuesAreAtLeastWhatAParserBuilds) {
  EXPECT_EQ(json_shape("").values, 0u);
  EXPECT_EQ(json_shape("7").values, 1u);
  EXPECT_EQ(json_shape("[1,2,3]").values, 4u);
  EXPECT_GE(json_shape(R"({"a":[1,2],"b":{"c":null}})").values, 6u);
  EXPECT_EQ(json_shape(R"(["a,b,c"])").values, 2u);  // commas in strings are text
}

TEST(JsonParseTest, RefusesDocumentsNestedPastTheLimit) {
  EXPECT_NO_THROW(parse_json(nested(kMaxJsonDepth)));
  try {
    parse_json(nested(kMaxJsonDepth + 1));
    FAIL() << "no throw";
  } catch (const nlohmann::json::parse_error& e) {
    EXPECT_NE(std::string(e.what()).find("nested deeper than 256 levels"), std::string::npos)
        << e.what();
    EXPECT_EQ(e.byte, kMaxJsonDepth + 1);
  }
  EXPECT_THROW(parse_json("{"), nlohmann::json::parse_error);

  std::string why = "stale";
  EXPECT_TRUE(parse_json_or_discarded(nested(100'000), &why).is_discarded());
  EXPECT_EQ(why, "nested deeper than 256 levels, the limit of JSON documents read (at byte 256)");
  EXPECT_TRUE(parse_json_or_discarded("{", &why).is_discarded());
  EXPECT_EQ(why, "");  // bad JSON: no depth to name
  EXPECT_EQ(parse_json_or_discarded(R"({"a":[1]})", &why)["a"][0], 1);
  EXPECT_EQ(json_depth_error(nested(3)), "");
}

// Restores the process's line limit when a test ends.
struct LineLimit {
  explicit LineLimit(std::int64_t bytes) { set_max_line_bytes(bytes); }
  ~LineLimit() { set_max_line_bytes(kDefaultMaxLineBytes); }
};

TEST(LineReaderTest, ReadsLinesLikeGetline) {
  std::istringstream in("a\r\n\nlast without newline");
  LineReader lines(in, "f");
  std::string line;
  ASSERT_TRUE(lines.next(line));
  EXPECT_EQ(line, "a\r");
  EXPECT_EQ(lines.number(), 1u);
  ASSERT_TRUE(lines.next(line));
  EXPECT_EQ(line, "");
  ASSERT_TRUE(lines.next(line));
  EXPECT_EQ(line, "last without newline");
  EXPECT_EQ(lines.number(), 3u);
  EXPECT_FALSE(lines.next(line));
  EXPECT_FALSE(lines.next(line));

  // Lines longer than the reader's 64 KiB block are joined; one at the limit passes.
  const std::string long_line(200'000, 'x');
  std::istringstream in2(long_line + "\n" + std::string(1024, 'y') + "\n");
  LineReader lines2(in2, "f", 200'000);
  ASSERT_TRUE(lines2.next(line));
  EXPECT_EQ(line, long_line);
  ASSERT_TRUE(lines2.next(line));
  EXPECT_EQ(line.size(), 1024u);
  EXPECT_FALSE(lines2.next(line));
}

TEST(LineReaderTest, ALineOverTheLimitThrowsBeforeItIsRead) {
  const LineLimit limit(4096);
  // 10 MB without a newline, as /dev/zero or a 1 GB line would be: the reader stops within a
  // block of the limit.
  std::istringstream in("ok\n" + std::string(10'000'000, '\0'));
  LineReader lines(in, "dataset d.jsonl");
  std::string line;
  ASSERT_TRUE(lines.next(line));
  try {
    lines.next(line);
    FAIL() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "dataset d.jsonl line 2 is longer than 4 KiB, the limit of --max-line-bytes: is it "
              "the right file? If so, raise --max-line-bytes");
  }
  EXPECT_LT(static_cast<std::int64_t>(in.tellg()), 4096 + 3 + 64 * 1024 + 1);
  EXPECT_EQ(max_line_bytes(), 4096);
}

TEST(InputLimitsTest, FormatsBytes) {
  EXPECT_EQ(format_bytes(100), "100 bytes");
  EXPECT_EQ(format_bytes(16 << 20), "16 MiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
}

}  // namespace
}  // namespace tokenbench::core
