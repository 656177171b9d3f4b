#pragma once

#include <string>

namespace tokenbench::client {

/// Whom https connections trust: the system's certificate store, a CA bundle of the user's
/// (--cacert), or nobody checked at all (--insecure). Part of the engine's settings
/// (EngineConfig::tls) and of each GET's (HttpGetOptions::tls): the load, the preflight, `check`
/// and the /metrics scraper are each given the run's. Plain data.
struct TlsOptions {
  std::string ca_file;    ///< PEM bundle to verify servers against instead of the system's
  bool insecure = false;  ///< no verification of the server's certificate or name
};

}  // namespace tokenbench::client
