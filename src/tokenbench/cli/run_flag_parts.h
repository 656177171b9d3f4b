#pragma once

// The parts of finalize_run_flags (run_flags.cpp), one file each by job: url_flags.cpp (URLs,
// targets, transports), value_flags.cpp (lists and byte sizes), flag_checks.cpp (the checks that
// read files or use another module's parser), run_flag_table.cpp (the flags and the enums of the
// option table).

#include <string>
#include <vector>

#include "tokenbench/cli/run_flags.h"

namespace tokenbench::cli {

/// "a, b ,c" as {"a", "b", "c"}.
std::vector<std::string> split_commas(const std::string& text);

/// --percentiles, --max-concurrency and --request-rate lists. Throw UsageError.
std::vector<double> parse_percentiles(const std::string& text);
std::vector<int> parse_concurrencies(const std::string& text);
std::vector<double> parse_rates(const std::string& text);

/// --base-url (each checked, the first the base, the rest replicas) and --balance.
void settle_base_urls(RunFlags& flags, bool& endpoint_from_url);
/// --stamps kernel and --http2 against the transport each server URL gets (proxies, libcurl).
void check_transport_urls(const RunFlags& flags);
/// --target items and --model a,b,c into config.targets (one target is a plain run) and model.
void settle_targets(RunFlags& flags, bool& endpoint_from_url);
void settle_models(RunFlags& flags);
/// --arrival, --max-concurrency, --request-rate and --ramp-up.
void settle_load(RunFlags& flags);

/// The table's enum options from flags.enum_text into flags.config. Throws UsageError.
void apply_enum_flags(RunFlags& flags);

/// The checks of the config that read files or parse with another module: --result-filename,
/// --dataset (name, lengths, images, file), --tokenizer, --think-time, --buckets, --label,
/// --goodput, --slo. Throws UsageError.
void check_files_and_syntax(const core::RunConfig& config);

}  // namespace tokenbench::cli
