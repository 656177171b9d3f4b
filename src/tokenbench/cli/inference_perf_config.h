#pragma once

// `run --config FILE` with inference-perf's YAML (kubernetes-sigs/inference-perf): its load
// stages, api, server, data and tokenizer sections as tokenbench flags (docs/CLI.md, "A peer's
// whole command line").

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace tokenbench::cli {

/// The file is inference-perf's (it has server, api or data, or load.stages), not a
/// tokenbench config.yaml.
bool is_inference_perf_config(const YAML::Node& root);

/// Its settings as tokenbench flags, a note each in `notes`. Throws UsageError naming the file
/// and the key on what it cannot honour (load.sweep, a key in the file, other data types, stages
/// of different durations).
std::vector<std::string> inference_perf_args(const YAML::Node& root, const std::string& path,
                                             std::vector<std::string>& notes);

/// `tokenbench inference-perf ...`: inference-perf's command line (inference_perf/main.py and
/// utils/cli_parser.py): `-c/--config_file FILE`, and any config key as `--KEY.PATH VALUE` (a
/// list or an object as JSON), deep-merged over the file's; --log-level said and ignored,
/// --analyze and --unified_analysis_dir refused. Returns the config's flags (as
/// inference_perf_args); the arguments that are not inference-perf's go to `rest`.
std::vector<std::string> inference_perf_command(const std::vector<std::string>& args,
                                                std::vector<std::string>& rest,
                                                std::vector<std::string>& notes);

}  // namespace tokenbench::cli
