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

TEST(OneLine, BidirectionalControlsAreEscaped) {
  // "Trojan Source": U+202E (RIGHT-TO-LEFT OVERRIDE) reverses what follows on the screen.
  EXPECT_EQ(one_line("model\xe2\x80\xaegpj.exe"), "model\\u202egpj.exe");
  EXPECT_EQ(one_line("\xe2\x81\xa6x\xe2\x81\xa9 \xe2\x80\x8f \xd8\x9c"),
            "\\u2066x\\u2069 \\u200f \\u061c");
  // Neighbours that are not controls stay: an en dash (U+2013) and an ellipsis (U+2026).
  EXPECT_EQ(one_line("a\xe2\x80\x93"
                     "b\xe2\x80\xa6"),
            "a\xe2\x80\x93"
            "b\xe2\x80\xa6");
}

TEST(ShellQuoted, AValueFromAServerRunsNothingWhenPasted) {
  EXPECT_EQ(shell_quoted("sim-model"), "sim-model");
  EXPECT_EQ(shell_quoted("http://127.0.0.1:8000"), "http://127.0.0.1:8000");
  EXPECT_EQ(shell_quoted("meta-llama/Llama-3.1-8B"), "meta-llama/Llama-3.1-8B");
  EXPECT_EQ(shell_quoted("m1;touch${IFS}/tmp/x"), "'m1;touch${IFS}/tmp/x'");
  EXPECT_EQ(shell_quoted("$(id)`id`"), "'$(id)`id`'");
  EXPECT_EQ(shell_quoted("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quoted(""), "''");
  EXPECT_EQ(shell_quoted("a b"), "'a b'");
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
  EXPECT_EQ(terminal_safe("\xc2\x9b"
                          "2J caf\xc3\xa9"),
            "\\u009b2J caf\xc3\xa9");
}

}  // namespace
}  // namespace tokenbench::core
