// The flags of one measurement: the option table's (core/run_options.h), one flag per row, and the
// few that are not one RunConfig member each.

#include <fmt/format.h>

#include <variant>

#include "tokenbench/cli/option_values.h"
#include "tokenbench/cli/run_flag_parts.h"
#include "tokenbench/core/overload.h"
#include "tokenbench/core/run_options.h"

namespace tokenbench::cli {
namespace {

// The flag of one table row, bound to its member of `flags.config` (an enum: to its text in
// flags.enum_text, parsed by apply_enum_flags).
CLI::Option* add_row_flag(CLI::App* cmd, RunFlags& flags, const core::RunOption& row) {
  core::RunConfig& c = flags.config;
  const std::string flag(row.flag);
  const std::string help(row.help);
  if (row.cli == core::OptionCli::kSwitch) {
    return cmd->add_flag(flag, c.*std::get<bool core::RunConfig::*>(row.field), help);
  }
  if (row.cli == core::OptionCli::kNegSwitch) {
    bool core::RunConfig::*member = std::get<bool core::RunConfig::*>(row.field);
    return cmd->add_flag_callback(
        flag, [&c, member] { c.*member = false; }, help);
  }
  CLI::Option* option =
      std::visit(core::Overload{
                     [&](const core::TextField& e) {
                       std::string& text = flags.enum_text[flag];
                       text = e.get(c);
                       CLI::Option* o = cmd->add_option(flag, text, help);
                       if (row.member_check) o->check(CLI::IsMember(e.choices()));
                       return o;
                     },
                     [&](std::vector<core::TargetSpec> core::RunConfig::*) -> CLI::Option* {
                       throw std::logic_error("the targets have no flag of their own");
                     },
                     [&](auto member) {
                       // --export is --emit too: the name a peer's result files are asked by.
                       const std::string names = flag == "--export" ? "--export,--emit" : flag;
                       return cmd->add_option(names, c.*member, help);
                     },
                 },
                 row.field);
  if (row.delimiter != 0) option->delimiter(row.delimiter);
  if (row.max_items > 0) option->expected(1, row.max_items);
  if (row.cli == core::OptionCli::kValue) option->capture_default_str();
  return option;
}

// The flags that are not one member each: lists that sweep, URLs, byte sizes, sampling, and the
// run's own (--config, --quiet, ...).
void add_other_flags(CLI::App* cmd, RunFlags& flags) {
  const auto help = [](const char* flag) {
    return std::string(core::find_option_by_flag(flag)->help);
  };
  for (const char* flag : {"--base-url", "--balance"}) {
    // --balance is the row's enum, given as text: checked when finalized.
    auto* o = std::string_view(flag) == "--base-url"
                  ? cmd->add_option(flag, flags.base_urls, help(flag))
                  : cmd->add_option(flag, flags.balance, help(flag));
    o->capture_default_str();
  }
  cmd->add_option("--api", flags.api, help("--api"));
  cmd->add_option("--gpus", flags.gpus, help("--gpus"))->capture_default_str();
  cmd->add_option("--model", flags.models, help("--model"));
  cmd->add_option("--target", flags.target_items, help("--target"));
  cmd->add_option("--temperature", flags.sampling.temperature,
                  "Sampling temperature sent in every request body (kept in extra_body)");
  cmd->add_option("--top-p", flags.sampling.top_p,
                  "Nucleus sampling top_p sent in every request body (kept in extra_body)");
  cmd->add_option("--top-k", flags.sampling.top_k,
                  "top_k sent in every request body (kept in extra_body; not for the Responses "
                  "API)");
  cmd->add_option("--max-event-bytes", flags.max_event_bytes, help("--max-event-bytes"))
      ->capture_default_str();
  cmd->add_option("--max-reply-bytes", flags.max_reply_bytes, help("--max-reply-bytes"))
      ->capture_default_str();
  cmd->add_option("--max-line-bytes", flags.max_line_bytes, help("--max-line-bytes"))
      ->capture_default_str();
  cmd->add_option("--max-workload-memory", flags.max_workload_memory,
                  "The most memory the workload may hold (prompts held for the run, requests "
                  "made ahead, the schedule; long generated runs hold no prompts): auto (75% of "
                  "MemAvailable), 0 (no check) or a size (8GiB)")
      ->capture_default_str();
  cmd->add_option("--max-concurrency", flags.concurrency, help("--max-concurrency"))
      ->capture_default_str();
  cmd->add_option("--request-rate", flags.rate, help("--request-rate"))->capture_default_str();
  // --arrival: the table's names, and poisson (gamma of burstiness 1: settle_load).
  std::vector<std::string> arrivals;
  for (const auto& row : core::kArrivalNames.rows()) arrivals.emplace_back(row.name);
  arrivals.insert(arrivals.begin() + 1, "poisson");
  offer_values(cmd->add_option("--arrival", flags.arrival, help("--arrival")), arrivals)
      ->capture_default_str();
  cmd->add_option("--ramp-up", flags.ramp, help("--ramp-up"))->capture_default_str();
  cmd->add_option("--percentiles", flags.percentiles, help("--percentiles"))->capture_default_str();
  cmd->add_option("--config", flags.config_file,
                  "YAML settings: a results directory's config.yaml (repeats that run) or "
                  "flag: value lines; flags given beside it win");
  cmd->add_flag("--quiet", flags.quiet, "No start line, live view or progress lines");
  cmd->add_option("--progress-interval", flags.progress_interval_s,
                  "Seconds between progress lines on stderr when it is not a terminal (a log, "
                  "CI); 0: none")
      ->capture_default_str();
  cmd->add_flag("--overwrite", flags.overwrite,
                "Replace the results a directory already holds (refused otherwise)");
  cmd->add_option("--history", flags.history_path,
                  "Add the run to this history database (default "
                  "$XDG_DATA_HOME/tokenbench/history.sqlite; docs/HISTORY.md)");
  cmd->add_flag("--no-history", flags.no_history, "Do not add the run to the history");
}

}  // namespace

void add_run_flags(CLI::App* cmd, RunFlags& flags) {
  for (const auto& row : core::run_options()) {
    if (row.cli != core::OptionCli::kNone && !row.flag.empty()) add_row_flag(cmd, flags, row);
  }
  add_other_flags(cmd, flags);
  // What a row cannot say: flags that mark themselves given, and checks of CLI11's own.
  cmd->get_option("--endpoint")->each([&flags](const std::string&) {
    flags.endpoint_given = true;
  });
  cmd->get_option("--num-prompts")->each([&flags](const std::string&) {
    flags.num_prompts_given = true;
  });
  core::RunConfig& c = flags.config;
  cmd->get_option("--output-len")->each([&c](const std::string&) {
    c.output_len_from_dataset = false;
  });
  cmd->get_option("--http2-streams")->check(CLI::Range(1, 1 << 20));
  cmd->get_option("--cacert")->check(CLI::ExistingFile);
  only_values(cmd->get_option("--export"), {"csv", "vllm", "evalscope", "aiperf", "guidellm"})
      ->delimiter(',');
  offer_table_values(cmd);  // the enums' names, for the completions and the man page
  cmd->footer(
      "Flags of vLLM's bench serve, EvalScope perf and GenAI-Perf (--random-input-len, "
      "--host/--port, --parallel, --number, --url, --concurrency, ...) are accepted as aliases "
      "where they mean the same: docs/CLI.md, \"Coming from another tool\".");
}

void apply_enum_flags(RunFlags& flags) {
  for (const auto& row : core::run_options()) {
    const auto* e = std::get_if<core::TextField>(&row.field);
    if (e == nullptr || row.cli == core::OptionCli::kNone) continue;
    const auto text = flags.enum_text.find(row.flag);
    if (text == flags.enum_text.end()) continue;
    if (!e->set(flags.config, text->second)) {
      throw UsageError(fmt::format(fmt::runtime(row.unknown), text->second, e->names()));
    }
  }
}

}  // namespace tokenbench::cli
