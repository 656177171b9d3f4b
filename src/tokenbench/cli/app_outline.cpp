#include "tokenbench/cli/app_outline.h"

#include "tokenbench/cli/option_values.h"

namespace tokenbench::cli {
namespace {

OptionOutline option_outline(const CLI::Option& o) {
  OptionOutline out;
  for (const auto& s : o.get_snames()) out.names.push_back("-" + s);
  for (const auto& l : o.get_lnames()) out.names.push_back("--" + l);
  if (out.names.empty()) out.positional = o.get_name(true);
  out.takes_value = o.get_items_expected_max() > 0;
  out.repeatable = o.get_items_expected_max() > 1;
  out.required = o.get_required();
  out.value_name = o.get_type_name();
  // CLI11 appends its validators' descriptions ("TEXT:{csv}", "INT:INT in [1 - 16]").
  if (const auto colon = out.value_name.find(':'); colon != std::string::npos) {
    out.value_name.resize(colon);
  }
  out.help = o.get_description();
  out.default_value = o.get_default_str();
  out.values = option_values(o);
  return out;
}

}  // namespace

CommandOutline outline_of(const CLI::App& app) {
  CommandOutline out;
  out.name = app.get_parent() == nullptr ? "" : app.get_name();
  out.help = app.get_description();
  out.footer = app.get_footer();
  // Hidden options (an empty group) are left out, as --help leaves them out.
  for (const CLI::Option* o :
       app.get_options([](const CLI::Option* opt) { return !opt->get_group().empty(); })) {
    out.options.push_back(option_outline(*o));
  }
  return out;
}

std::vector<CommandOutline> command_outlines(const CLI::App& app) {
  std::vector<CommandOutline> out;
  for (const CLI::App* sub :
       app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
    out.push_back(outline_of(*sub));
  }
  return out;
}

}  // namespace tokenbench::cli
