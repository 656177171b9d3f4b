#include "tokenbench/core/run_options.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <limits>

#include "tokenbench/core/config_check.h"
#include "tokenbench/core/overload.h"
#include "tokenbench/core/run_option_rows.h"

namespace tokenbench::core {
namespace {

using C = RunConfig;

std::vector<RunOption> make_table() {
  using namespace rows;
  std::vector<RunOption> table;
  for (auto part : {target_rows(), targets_rows(), load_rows(), workload_rows(), output_rows()}) {
    table.insert(table.end(), part.begin(), part.end());
  }
  return table;
}

}  // namespace

std::span<const RunOption> run_options() {
  static const std::vector<RunOption> table = make_table();
  return table;
}

namespace {

void write_value(YAML::Emitter& out, const RunOption& row, const C& c) {
  std::visit(Overload{
                 [&](std::string C::*m) { out << (row.shown ? row.shown(c.*m) : c.*m); },
                 [&](std::vector<std::string> C::*m) { out << YAML::Flow << c.*m; },
                 [&](std::vector<double> C::*m) { out << YAML::Flow << c.*m; },
                 [&](std::vector<TargetSpec> C::*) {},
                 [&](const TextField& e) { out << (row.shown ? row.shown(e.get(c)) : e.get(c)); },
                 [&](auto m) { out << c.*m; },
             },
             row.field);
}

void read_value(const YAML::Node& n, const RunOption& row, C& c) {
  std::visit(
      Overload{
          [&](std::vector<TargetSpec> C::*) {},
          [&](const TextField& e) {
            const auto text = n.as<std::string>();
            if (e.set(c, text) || row.lenient) return;
            throw std::runtime_error(fmt::format("config.yaml: {}.{} '{}' is not known: use {}",
                                                 row.section, row.key, text, e.names()));
          },
          [&](auto m) { c.*m = n.as<std::remove_reference_t<decltype(c.*m)>>(); },
      },
      row.field);
}

}  // namespace

const RunOption* find_option_by_flag(std::string_view flag) {
  for (const auto& row : run_options()) {
    if (row.flag == flag) return &row;
  }
  return nullptr;
}

const RunOption* find_option_by_key(std::string_view key) {
  for (const auto& row : run_options()) {
    if (row.key == key) return &row;
  }
  return nullptr;
}

std::string option_path(const RunOption& row) {
  return row.section.empty() ? std::string(row.key)
                             : std::string(row.section) + "." + std::string(row.key);
}

void copy_option(const RunOption& row, C& to, const C& from) {
  std::visit(Overload{
                 [&](const TextField& e) { e.copy(to, from); },
                 [&](auto m) { to.*m = from.*m; },
             },
             row.field);
}

void check_option_range(const RunOption& row, const C& c) {
  const OptionRange& r = row.range;
  if (r.kind == OptionRange::kNone) return;
  const auto check = [&](auto value) {
    using T = decltype(value);
    if (!std::isnan(r.unset) && static_cast<double>(value) == r.unset) return;
    if (r.kind == OptionRange::kInRange) {
      const T lo = static_cast<T>(r.lo), hi = static_cast<T>(r.hi);
      if (value >= lo && value <= hi) return;
      throw ConfigError(fmt::format("{} {} is out of range: give {} to {}{}", row.flag, value, lo,
                                    hi,
                                    r.unit.empty() ? std::string() : " " + std::string(r.unit)));
    }
    const bool zero_is_none = r.kind == OptionRange::kTimeoutOrNone;
    if (zero_is_none && value == 0) return;
    if (value >= r.lo && value <= r.hi) return;
    throw ConfigError(fmt::format("{} {} is out of range: give {} to {} seconds{}", row.flag, value,
                                  r.lo, r.hi, zero_is_none ? " (0: none)" : ""));
  };
  std::visit(Overload{
                 [&](int C::*m) { check(c.*m); },
                 [&](std::int64_t C::*m) { check(c.*m); },
                 [&](double C::*m) { check(c.*m); },
                 [&](auto) { throw std::logic_error("a range on an option that is no number"); },
             },
             row.field);
}

void carry_unresumed(C& kept, const C& now) {
  for (const auto& row : run_options()) {
    if (!row.resumed) copy_option(row, kept, now);
  }
}

std::vector<std::string> not_compared_paths() {
  std::vector<std::string> out;
  for (const auto& row : run_options()) {
    if (!row.compared) out.push_back(option_path(row));
  }
  return out;
}

std::string to_yaml(const C& c) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  std::string_view section;
  for (const auto& row : run_options()) {
    if (row.section != section) {
      if (!section.empty()) out << YAML::EndMap;
      section = row.section;
      if (!section.empty())
        out << YAML::Key << std::string(section) << YAML::Value << YAML::BeginMap;
    }
    if (row.written != nullptr && !row.written(c)) continue;
    if (row.write != nullptr) {
      row.write(out, c);
      continue;
    }
    out << YAML::Key << std::string(row.key) << YAML::Value;
    write_value(out, row, c);
  }
  if (!section.empty()) out << YAML::EndMap;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

RunConfig run_config_from_yaml(const std::string& text) {
  C c;
  try {
    const YAML::Node root = YAML::Load(text);
    for (const auto& row : run_options()) {
      const YAML::Node section = row.section.empty() ? root : root[std::string(row.section)];
      if (!section) continue;
      if (row.read != nullptr) {
        row.read(section, c);
      } else if (const YAML::Node n = section[std::string(row.key)]) {
        read_value(n, row, c);
      }
    }
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(std::string("config.yaml is not valid: ") + e.what());
  }
  return c;
}

}  // namespace tokenbench::core