#pragma once

#include <string_view>

namespace tokenbench::core {

/// tokenbench's version, as `tokenbench --version` prints it and the environment record keeps.
/// CMakeLists.txt checks at configure time that it equals the project's VERSION.
inline constexpr std::string_view kVersion = "0.1.0";

}  // namespace tokenbench::core
