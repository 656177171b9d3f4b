#include "tokenbench/core/text.h"

#include <gtest/gtest.h>

namespace tokenbench::core {
namespace {

TEST(OneLine, LineBreaksBecomeSpacesAndControlsAreEscaped) {
  EXPECT_EQ(one_line("a\nb\r\nc\td"), "a b  c d");
  // Clear screen, a title set ended by BEL, a backspace and DEL: shown, never obeyed.
  EXPECT_EQ(one_line("\x1b[2J\x1b]0;pwned\x07x\x08\x7f"), "\\x1b[2J\\x1b]0;pwned\\x07x\\x08\\x7f");
  // The C1 control CSI (U+009B) in UTF-8 is escaped; other UTF-8 text is kept as it is.
  EXPECT_EQ(one_line("\xc2\x9b"
                     "31m caf\xc3\xa9 \xe4\xbd\xa0"),
            "\\u009b31m caf\xc3\xa9 \xe4\xbd\xa0");
  EXPECT_EQ(one_line("plain text"), "plain text");
}

TEST(FileNamePart, OneSafePathComponent) {
  EXPECT_EQ(file_name_part("meta-llama/Llama-3.1-8B", "x"), "meta-llama_Llama-3.1-8B");
  EXPECT_EQ(file_name_part("a b:c", "x"), "a_b_c");
  EXPECT_EQ(file_name_part("..", "x"), "__");
  EXPECT_EQ(file_name_part(".", "x"), "_");
  EXPECT_EQ(file_name_part("", "target"), "target");
  EXPECT_EQ(file_name_part("v1.5", "x"), "v1.5");
  // A 5,000-character model id makes a name the file system accepts.
  EXPECT_EQ(file_name_part(std::string(5000, 'm'), "x"), std::string(64, 'm'));
  EXPECT_EQ(file_name_part("abcdef", "x", 3), "abc");
}

TEST(Text, TerminalSafeKeepsLinesAndNeutralisesEscapes) {
  EXPECT_EQ(terminal_safe("table\n\trow\x1b[31mred\r\n"), "table\n\trow\\x1b[31mred\\x0d\n");
  EXPECT_EQ(terminal_safe("\xc2\x9b" "2J caf\xc3\xa9"), "\\u009b2J caf\xc3\xa9");
}

}  // namespace
}  // namespace tokenbench::core
