#include "tokenbench/core/names.h"

#include <gtest/gtest.h>

namespace tokenbench::core {
namespace {

enum class Colour { kRed, kGreen, kBlue };

constexpr auto kColours = make_names<Colour>({{Colour::kRed, "red"},
                                              {Colour::kGreen, "green"},
                                              {Colour::kBlue, "blue"},
                                              {Colour::kRed, "r"}});

TEST(NameTable, NamesEachValueByItsFirstRow) {
  EXPECT_EQ(kColours.name(Colour::kRed), "red");
  EXPECT_EQ(kColours.name(Colour::kBlue), "blue");
  static_assert(kColours.name(Colour::kGreen) == "green");
}

TEST(NameTable, ParsesNamesAndAliasesExactly) {
  EXPECT_EQ(kColours.parse("green"), Colour::kGreen);
  EXPECT_EQ(kColours.parse("r"), Colour::kRed);
  EXPECT_EQ(kColours.parse("Red"), std::nullopt);
  EXPECT_EQ(kColours.parse(""), std::nullopt);
}

TEST(NameTable, ListsTheWrittenNamesWithoutAliases) {
  EXPECT_EQ(kColours.names(), "red, green, blue");
  EXPECT_EQ(kColours.names(" | "), "red | green | blue");
}

TEST(NameTable, AValueWithoutANameIsAProgrammingError) {
  constexpr auto partial = make_names<Colour>({{Colour::kRed, "red"}});
  EXPECT_THROW((void)partial.name(Colour::kBlue), std::logic_error);
}

}  // namespace
}  // namespace tokenbench::core
