#pragma once

#include <CLI/CLI.hpp>

namespace tokenbench::cli {

/// Guards every numeric flag of `app` and its subcommands, whatever the command: a FLOAT flag
/// refuses NaN and infinities (an option that takes "inf" is a string option and parses it
/// itself), an INT flag a value outside int64, a UINT flag a negative value or one above
/// 2^64-1 (CLI11 would wrap -1 and clamp a long number silently). The error is one UsageError
/// line naming the flag and the range. Call once, after every command registered its flags.
void guard_number_flags(CLI::App& app);

}  // namespace tokenbench::cli
