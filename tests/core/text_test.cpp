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

}  // namespace
}  // namespace tokenbench::core
