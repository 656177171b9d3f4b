#pragma once

#include <string>

#include "tokenbench/core/run_config.h"

namespace tokenbench::cli {

/// The sampling parameters of `run` and `search` as typed ("" when not given).
struct SamplingFlags {
  std::string temperature;  ///< --temperature T: >= 0
  std::string top_p;        ///< --top-p P: in (0, 1]
  std::string top_k;        ///< --top-k K: a whole number >= -1 (-1 and 0: off, as vLLM reads them)
};

/// Checks the sampling flags given and merges them into `config.extra_body` as the request fields
/// temperature, top_p and top_k, so that every request body carries them and config.yaml records
/// them (a --config rerun sends them again). Refuses, with one line naming the flag (throws
/// UsageError): a value out of range, an API without the field (embeddings take none; the
/// Responses API has no top_k), a --extra-body that is not a JSON object, and a --extra-body
/// field of the same name with another value. Call after config.api is settled.
void merge_sampling_flags(const SamplingFlags& flags, core::RunConfig& config);

}  // namespace tokenbench::cli
