#pragma once

// The options of one run as data: one row per RunConfig option, from which the CLI's flags
// (cli/run_flags.cpp), config.yaml (to_yaml, run_config_from_yaml), --config's key-to-flag rules
// (cli/config_file.cpp), core::validate's range checks and the workload identity that `compare`
// and `--resume` check are all derived. Adding an option: a RunConfig member, one row here, and
// the code that uses it.

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tokenbench/core/run_config.h"

namespace YAML {
class Emitter;
class Node;
}  // namespace YAML

namespace tokenbench::core {

/// How the CLI registers a row's flag.
enum class OptionCli : std::uint8_t {
  kValue,      ///< --flag VALUE, its default shown in --help
  kValueBare,  ///< --flag VALUE, no default shown
  kSwitch,     ///< --flag sets a bool true
  kNegSwitch,  ///< --no-flag sets a bool false
  kNone,       ///< registered by the CLI itself (a list, a URL, ...), or no flag at all
};

/// How --config turns a config.yaml key into flags (cli/config_file.cpp).
enum class ConfigRule : std::uint8_t {
  kGeneric,  ///< by the value's shape: a list repeats the flag, true gives the switch
  kValue,    ///< --flag VALUE (an empty value is left out)
  kRepeat,   ///< a list: --flag A --flag B
  kJoin,     ///< a list: --flag A,B (a scalar as it is)
  kMulti,    ///< a list: --flag A B
  kIfTrue,   ///< a switch given when the value is true
  kIfFalse,  ///< a switch given when the value is false (stream: false is --no-stream)
  kNonZero,  ///< --flag VALUE unless VALUE is 0 (0 is the flag's "not given")
  kTargets,  ///< config.yaml's targets: --target model=...,url=...
  kSkip,     ///< recorded facts, not settings
};

/// The accepted range of a number, checked by core::validate (config_check.h):
/// "--flag V is out of range: give LO to HI UNIT", or a timeout's message.
struct OptionRange {
  enum Kind : std::uint8_t { kNone, kInRange, kTimeout, kTimeoutOrNone } kind = kNone;
  double lo = 0;
  double hi = 0;
  std::string_view unit{};
  /// A value outside [lo, hi] that stands for "not given" (the member's default, e.g. -1), and
  /// passes; NaN: none.
  double unset = std::numeric_limits<double>::quiet_NaN();
};

/// A member parsed from the text a flag or config.yaml gives, and written back as that text: an
/// enum through its NameTable (enum_field below), or a value with its own syntax (parsed_field).
struct TextField {
  std::string (*get)(const RunConfig&);
  bool (*set)(RunConfig&, std::string_view);  ///< false: not a value of the member
  void (*copy)(RunConfig&, const RunConfig&);
  std::string (*names)();                 ///< "a, b or c", for messages
  std::vector<std::string> (*choices)();  ///< the names (an enum's), or fixed values
};

/// The member a row reads and writes.
using OptionField =
    std::variant<std::string RunConfig::*, bool RunConfig::*, int RunConfig::*,
                 std::int64_t RunConfig::*, std::uint64_t RunConfig::*, double RunConfig::*,
                 std::vector<std::string> RunConfig::*, std::vector<double> RunConfig::*,
                 std::vector<TargetSpec> RunConfig::*, TextField>;

/// One option of a run.
struct RunOption {
  std::string_view flag{};     ///< "--stall-timeout"; empty: a recorded fact, no flag
  std::string_view section{};  ///< config.yaml's section (target, load, workload, metrics); "": top
  std::string_view key{};      ///< config.yaml's key, e.g. "stall_timeout_s"
  OptionField field;
  std::string_view help{};  ///< --help's text
  OptionCli cli = OptionCli::kValue;
  ConfigRule rule = ConfigRule::kGeneric;
  OptionRange range{};
  /// config.yaml writes the key only when this says so; nullptr: always.
  bool (*written)(const RunConfig&) = nullptr;
  bool compared = true;  ///< part of the workload identity `compare` checks
  bool resumed = true;   ///< must be unchanged for --resume
  /// The CLI accepts only the enum's names (CLI11's IsMember message); else an unknown name is
  /// refused with `unknown` ("{}": the value).
  bool member_check = false;
  std::string_view unknown{};
  char delimiter = 0;    ///< a list flag split at this character (--lora-modules a,b,c)
  int max_items = -1;    ///< a list flag's most values after one flag (-1: one per flag)
  bool lenient = false;  ///< config.yaml: an unknown enum name keeps the default
  /// Special syntax: how config.yaml writes and reads it (redaction, infinity, a nested list).
  std::string (*shown)(const std::string&) = nullptr;
  void (*write)(YAML::Emitter&, const RunConfig&) = nullptr;
  void (*read)(const YAML::Node& section, RunConfig&) = nullptr;
};

/// The table, in config.yaml's order.
std::span<const RunOption> run_options();

/// The row of `flag` or of config.yaml key `key` (either may be a row's); nullptr when none.
const RunOption* find_option_by_flag(std::string_view flag);
const RunOption* find_option_by_key(std::string_view key);

/// "section.key" (or "key" at the top), as `compare` names config.yaml's values.
std::string option_path(const RunOption& row);

/// Copies the row's member from `from` to `to`.
void copy_option(const RunOption& row, RunConfig& to, const RunConfig& from);

/// Checks the row's range (OptionRange) in `config`; throws ConfigError.
void check_option_range(const RunOption& row, const RunConfig& config);

/// The enum's name of `value` as std::string.
template <typename E, std::size_t N>
std::string name_of(const NameTable<E, N>& names, E value) {
  return std::string(names.name(value));
}

/// "a, b or c": the names of a NameTable for a message.
template <typename E, std::size_t N>
std::string names_or(const NameTable<E, N>& names) {
  std::string out = names.names(", ");
  if (const auto last = out.rfind(", "); last != std::string::npos) out.replace(last, 2, " or ");
  return out;
}

/// An TextField for `Member`, named by `Names`.
template <auto Member, const auto& Names>
TextField enum_field() {
  return {
      [](const RunConfig& c) { return std::string(Names.name(c.*Member)); },
      [](RunConfig& c, std::string_view text) {
        const auto v = Names.parse(text);
        if (v) c.*Member = *v;
        return v.has_value();
      },
      [](RunConfig& to, const RunConfig& from) { to.*Member = from.*Member; },
      [] { return names_or(Names); },
      [] {
        std::vector<std::string> out;
        for (const auto& row : Names.rows()) {
          if (Names.name(row.value) == row.name) out.emplace_back(row.name);
        }
        return out;
      },
  };
}

/// What a parsed_field accepts: `names` for messages, and its fixed values.
template <std::size_t N>
struct TextSyntax {
  std::string_view names;
  std::array<std::string_view, N> choices;
};

/// A TextField for `Member`, a value that `Parse` reads from text (nullopt: not one) and
/// to_string writes back. `Syntax` says what is accepted: its `names` for messages ("auto, off
/// or an http(s):// URL") and its fixed `choices`.
template <auto Member, auto Parse, const auto& Syntax>
TextField parsed_field() {
  return {
      [](const RunConfig& c) { return to_string(c.*Member); },
      [](RunConfig& c, std::string_view text) {
        const auto v = Parse(text);
        if (v) c.*Member = *v;
        return v.has_value();
      },
      [](RunConfig& to, const RunConfig& from) { to.*Member = from.*Member; },
      [] { return std::string(Syntax.names); },
      [] { return std::vector<std::string>(Syntax.choices.begin(), Syntax.choices.end()); },
  };
}

/// Resets, in `kept`, every option --resume does not require unchanged to its value in `now`.
void carry_unresumed(RunConfig& kept, const RunConfig& now);

/// The config.yaml paths ("load.fail_fast") `compare` does not check.
std::vector<std::string> not_compared_paths();

}  // namespace tokenbench::core
