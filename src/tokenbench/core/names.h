#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tokenbench::core {

/// One row of a NameTable: a value and a name it is written or read as.
template <typename E>
struct NameOf {
  E value;
  std::string_view name;
};

/// The names of an enum's values, as data: the one place that says how a value is written and
/// which names are read back as it. A value's first row is its name (what name() returns); later
/// rows of the same value are aliases that parse() accepts too. Replaces the hand-written
/// to_string / from_string switch pairs; a value without a row is a programming error (name()
/// throws std::logic_error, which a test over every value catches).
///
///   inline constexpr auto kRampNames = make_names<RampKind>({
///       {RampKind::kNone, "none"}, {RampKind::kLinear, "linear"}, {RampKind::kExp, "exp"}});
///   kRampNames.name(RampKind::kLinear) == "linear";  kRampNames.parse("exp") == RampKind::kExp
template <typename E, std::size_t N>
class NameTable {
 public:
  constexpr explicit NameTable(std::array<NameOf<E>, N> rows) : rows_(rows) {}

  /// The name `value` is written as: its first row.
  constexpr std::string_view name(E value) const {
    for (const auto& row : rows_) {
      if (row.value == value) return row.name;
    }
    throw std::logic_error("NameTable: a value without a name");
  }

  /// The value named `text` (exact match; any of its rows), or nullopt.
  constexpr std::optional<E> parse(std::string_view text) const {
    for (const auto& row : rows_) {
      if (row.name == text) return row.value;
    }
    return std::nullopt;
  }

  /// The names values are written as (first rows only), joined with `separator`, in table order:
  /// what an error message lists as the accepted values.
  std::string names(std::string_view separator = ", ") const {
    std::string out;
    for (std::size_t i = 0; i < N; ++i) {
      bool first_of_value = true;
      for (std::size_t j = 0; j < i; ++j) {
        if (rows_[j].value == rows_[i].value) first_of_value = false;
      }
      if (!first_of_value) continue;
      if (!out.empty()) out += separator;
      out += rows_[i].name;
    }
    return out;
  }

  constexpr const std::array<NameOf<E>, N>& rows() const { return rows_; }

 private:
  std::array<NameOf<E>, N> rows_;
};

/// A NameTable from a braced list of {value, "name"} rows.
template <typename E, std::size_t N>
constexpr NameTable<E, N> make_names(NameOf<E> (&&rows)[N]) {
  std::array<NameOf<E>, N> table{};
  for (std::size_t i = 0; i < N; ++i) table[i] = rows[i];
  return NameTable<E, N>(table);
}

}  // namespace tokenbench::core
