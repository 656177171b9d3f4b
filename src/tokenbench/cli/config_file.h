#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>
#include <vector>

namespace tokenbench::cli {

/// Expands `--config FILE` (or `--config=FILE`) among a `run` or `search` command's arguments:
/// the YAML file's settings become flags placed before the command line's own, and a flag given
/// on the command line replaces the file's (every value of it). The file is either a results
/// directory's config.yaml (its sections target, load, workload, metrics; so a run repeats
/// exactly: same seed, prompts and schedule) or a flat map of flag names without their dashes
/// (`num-prompts: 100` or `num_prompts: 100`; a list repeats the flag; true is a switch).
/// `known_flag("--name")` says whether the command has that flag. Returns `args` unchanged when
/// there is no --config. Throws UsageError with one line naming the file and the key on a file
/// that cannot be read, is not YAML, or holds an unknown key. Secret header values, which
/// config.yaml redacts, are left out with a note in `notes`: give them again with --header.
std::vector<std::string> expand_config(const std::vector<std::string>& args,
                                       const std::function<bool(const std::string&)>& known_flag,
                                       std::vector<std::string>& notes);

/// The YAML document of the file at `path`. Throws UsageError starting with `label` ("--config
/// FILE") on a file that cannot be read or is not YAML.
YAML::Node read_yaml_file(const std::string& path, const std::string& label);

/// `from_file`'s flags (a config's), less those `rest` gives again, followed by `rest`: a flag on
/// the command line replaces every value the file gave it.
std::vector<std::string> flags_over(const std::vector<std::string>& from_file,
                                    const std::vector<std::string>& rest);

}  // namespace tokenbench::cli
