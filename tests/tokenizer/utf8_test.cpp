#include "tokenbench/tokenizer/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace tokenbench::tokenizer {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

TEST(Utf8, ValidTextIsValid) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii text longer than eight bytes"));
  EXPECT_TRUE(is_valid_utf8("h\xC3\xA9llo \xE4\xBD\xA0\xE5\xA5\xBD \xF0\x9F\x8E\x89"));
  EXPECT_TRUE(is_valid_utf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
}

TEST(Utf8, IllFormedTextIsInvalid) {
  EXPECT_FALSE(is_valid_utf8("abc\xFF"));
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(is_valid_utf8("12345678\xE4\xBD"));  // truncated after the fast path
}

// One U+FFFD per maximal subpart, as the WHATWG decoder (TextDecoder) does.
TEST(Utf8, SanitizeReplacesMaximalSubparts) {
  EXPECT_EQ(sanitize_utf8("abc\xFF"
                          "def"),
            "abc" + kFffd + "def");
  EXPECT_EQ(sanitize_utf8("caf\xC3"), "caf" + kFffd);
  EXPECT_EQ(sanitize_utf8("\xE4\xBD hi"), kFffd + " hi");  // a truncated 3-byte sequence: one
  EXPECT_EQ(sanitize_utf8("x\xF0\x9F\x98y"), "x" + kFffd + "y");
  EXPECT_EQ(sanitize_utf8("\xF0\x80\x80\xAF"), kFffd + kFffd + kFffd + kFffd);
  EXPECT_EQ(sanitize_utf8("\xED\xA0\x80"), kFffd + kFffd + kFffd);
  EXPECT_EQ(sanitize_utf8("\xC3\x28"), kFffd + "(");
  EXPECT_EQ(sanitize_utf8("ok \xE4\xBD\xA0"), "ok \xE4\xBD\xA0");
}

TEST(Utf8, CodePointsRoundTrip) {
  std::string s;
  for (const char32_t cp : {U'a', U'\u00E9', U'\u4F60', U'\U0001F389'}) append_utf8(cp, s);
  std::size_t pos = 0;
  EXPECT_EQ(next_code_point(s, pos), U'a');
  EXPECT_EQ(next_code_point(s, pos), U'\u00E9');
  EXPECT_EQ(next_code_point(s, pos), U'\u4F60');
  EXPECT_EQ(next_code_point(s, pos), U'\U0001F389');
  EXPECT_EQ(pos, s.size());
}

TEST(Utf8, WhiteSpaceIsUnicodeWhiteSpace) {
  for (const char32_t cp :
       {U' ', U'\t', U'\n', U'\r', U'\u0085', U'\u00A0', U'\u3000', U'\u2028'}) {
    EXPECT_TRUE(is_unicode_whitespace(cp)) << static_cast<int>(cp);
  }
  for (const char32_t cp : {U'a', U'\u180E', U'\u200B', U'\u0000'}) {
    EXPECT_FALSE(is_unicode_whitespace(cp)) << static_cast<int>(cp);
  }
}

}  // namespace
}  // namespace tokenbench::tokenizer
