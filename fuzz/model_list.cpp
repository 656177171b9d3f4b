// The GET /v1/models reply as the preflight reads it: client::parse_model_list and
// client::first_model_id. The input is the reply body. Invariants: both agree, and a serve-sim
// time scale is only taken when it is a finite positive number.

#include <cmath>

#include "fuzz_support.h"
#include "tokenbench/client/credentials.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string body(tokenbench::fuzz::as_view(data, size));
  const tokenbench::client::ModelList list = tokenbench::client::parse_model_list(body);
  const auto first = tokenbench::client::first_model_id(body);
  if (first.has_value() != !list.ids.empty() || (first && *first != list.ids.front())) {
    tokenbench::fuzz::fail("first_model_id disagrees with parse_model_list");
  }
  if (list.sim_time_scale && !(std::isfinite(*list.sim_time_scale) && *list.sim_time_scale > 0)) {
    tokenbench::fuzz::fail("a time scale that is not a finite positive number");
  }
  return 0;
}
