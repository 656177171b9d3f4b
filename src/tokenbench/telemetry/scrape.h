#pragma once

#include <string>
#include <vector>

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

/// Every scrape of one /metrics URL over a run, and what it is: a --base-url replica's own
/// /metrics ("replica"), or a --server-metrics URL scraped besides ("extra": a prefill or decode
/// worker, a router).
struct ScrapeSource {
  std::string name;  ///< the replica's host:port, or --server-metrics's name=
  std::string url;   ///< as written: credentials in its query redacted
  std::string role = "replica";
  std::vector<Scrape> scrapes;  ///< in time order
};

}  // namespace tokenbench::telemetry
