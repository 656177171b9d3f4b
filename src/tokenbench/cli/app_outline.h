#pragma once

// The commands and flags of the CLI11 app as plain data, read back from the app itself (after
// every command has registered its flags), for what is generated from it: the shell completions
// (completion.cpp) and the man page (man_page.cpp). Generated from the app, they cannot drift
// from it.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tokenbench::cli {

/// One option of a command as --help shows it.
struct OptionOutline {
  std::vector<std::string> names;  ///< "-o", "--output"; empty for a positional
  std::string positional;          ///< a positional's name ("dir"); "" for a flag
  bool takes_value = false;        ///< false: a switch
  bool repeatable = false;         ///< may be given more than once, or take several values
  bool required = false;
  std::string value_name;  ///< "TEXT", "INT", "FLOAT" (CLI11's type name, without validators)
  std::string help;
  std::string default_value;        ///< as --help shows it; "" when none is shown
  std::vector<std::string> values;  ///< the values it takes when they are a fixed set
};

/// One command: its name, --help's description and footer, and its options in --help's order.
struct CommandOutline {
  std::string name;
  std::string help;
  std::string footer;
  std::vector<OptionOutline> options;
};

/// The options of `app` itself (--help, --version) as a command named "".
CommandOutline outline_of(const CLI::App& app);

/// The commands of `app` that --help lists (hidden ones, such as `completion` and `man`, left
/// out), in their order of registration.
std::vector<CommandOutline> command_outlines(const CLI::App& app);

}  // namespace tokenbench::cli
