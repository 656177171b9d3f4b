#pragma once

// Overload: one visitor made of several lambdas, for std::visit over a variant.
//
//   std::visit(core::Overload{[](int i) { ... }, [](const std::string& s) { ... }}, value);

namespace tokenbench::core {

template <class... F>
struct Overload : F... {
  using F::operator()...;
};
// C++20 deduces this for an aggregate; clang before 17 (clang-tidy 14 here) needs it said.
template <class... F>
Overload(F...) -> Overload<F...>;

}  // namespace tokenbench::core
