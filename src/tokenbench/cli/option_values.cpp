#include "tokenbench/cli/option_values.h"

#include <map>
#include <utility>
#include <variant>

#include "tokenbench/core/run_options.h"

namespace tokenbench::cli {
namespace {

// By option: the options live as long as the app, which main() keeps to the end.
std::map<const CLI::Option*, std::vector<std::string>>& recorded() {
  static std::map<const CLI::Option*, std::vector<std::string>> values;
  return values;
}

}  // namespace

CLI::Option* offer_values(CLI::Option* option, std::vector<std::string> values) {
  recorded()[option] = std::move(values);
  return option;
}

CLI::Option* only_values(CLI::Option* option, const std::vector<std::string>& values) {
  option->check(CLI::IsMember(values));
  return offer_values(option, values);
}

const std::vector<std::string>& option_values(const CLI::Option& option) {
  static const std::vector<std::string> kAny;
  const auto found = recorded().find(&option);
  return found == recorded().end() ? kAny : found->second;
}

void offer_table_values(CLI::App* cmd) {
  for (CLI::Option* option : cmd->get_options()) {
    if (!option_values(*option).empty()) continue;  // recorded by the command itself
    for (const std::string& name : option->get_lnames()) {
      const core::RunOption* row = core::find_option_by_flag("--" + name);
      const auto* text = row == nullptr ? nullptr : std::get_if<core::TextField>(&row->field);
      if (text == nullptr) continue;
      if (auto values = text->choices(); !values.empty()) offer_values(option, std::move(values));
    }
  }
}

}  // namespace tokenbench::cli
