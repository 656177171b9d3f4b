#pragma once

#include <string>

#include "tokenbench/core/clock.h"
#include "tokenbench/telemetry/server_series.h"

namespace tokenbench::telemetry {

/// One scrape of a server's /metrics: when (run clock), why ("interval", "measure_start",
/// "measure_end"), and what it said, mapped onto the common series; or why it failed.
struct Scrape {
  core::Nanos t = core::kNever;
  std::string label;
  bool ok = false;
  std::string error;  ///< when !ok: one line
  ServerSnapshot snapshot;
};

}  // namespace tokenbench::telemetry
