#pragma once

#include <string>

namespace tokenbench::client {

/// Whom https connections trust: the system's certificate store, a CA bundle of the user's
/// (--cacert), or nobody checked at all (--insecure). One setting for the whole process, like the
/// proxy environment: the load, the preflight, `check` and the /metrics scraper all follow it.
struct TlsOptions {
  std::string ca_file;    ///< PEM bundle to verify servers against instead of the system's
  bool insecure = false;  ///< no verification of the server's certificate or name
};

/// Sets the process's TLS options; call before any connection is made.
void set_tls_options(TlsOptions options);
const TlsOptions& tls_options();

}  // namespace tokenbench::client
