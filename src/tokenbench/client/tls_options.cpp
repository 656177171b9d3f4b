#include "tokenbench/client/tls_options.h"

#include <utility>

namespace tokenbench::client {
namespace {
TlsOptions& options() {
  static TlsOptions instance;
  return instance;
}
}  // namespace

void set_tls_options(TlsOptions o) { options() = std::move(o); }
const TlsOptions& tls_options() { return options(); }

}  // namespace tokenbench::client
