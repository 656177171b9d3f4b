#pragma once

// The values an option takes when they are a fixed set (an enum's names, a few keywords), kept
// beside the CLI11 option so that what is generated from the app (the shell completions and the
// man page: cli/completion.cpp, cli/man_page.cpp) offers them. Recorded by the commands while
// they register their flags (main thread, before parsing); read afterwards.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tokenbench::cli {

/// Records `values` as what `option` takes. The option still accepts anything its own checks
/// accept (a URL beside "auto" and "off", an exponential:MEAN beside "uniform").
CLI::Option* offer_values(CLI::Option* option, std::vector<std::string> values);

/// Records `values` and makes them the only ones `option` accepts (CLI11's IsMember).
CLI::Option* only_values(CLI::Option* option, const std::vector<std::string>& values);

/// The values recorded for `option`; empty when it takes any value.
const std::vector<std::string>& option_values(const CLI::Option& option);

/// Records, for each option of `cmd` that is a row of the option table (core/run_options.h) with
/// named values (an enum, or a field's fixed keywords), those values, unless the command
/// recorded the option's values itself.
void offer_table_values(CLI::App* cmd);

}  // namespace tokenbench::cli
