// metrics::QuantileSketch::decode, the form in which sketches travel between MPI ranks and are
// stored. The input is the encoded bytes. Invariants: decode accepts or throws
// std::invalid_argument (nothing else, no crash); an accepted sketch encodes to bytes that decode
// to the same encoding, and its quantiles lie in [min, max].

#include "tokenbench/metrics/quantile_sketch.h"

#include <stdexcept>

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using tokenbench::metrics::QuantileSketch;
  try {
    const QuantileSketch s = QuantileSketch::decode(tokenbench::fuzz::as_view(data, size));
    const std::string bytes = s.encode();
    if (QuantileSketch::decode(bytes).encode() != bytes) {
      tokenbench::fuzz::fail("a decoded sketch does not round-trip");
    }
    if (s.count() == 0) return 0;
    for (double p : {0.0, 0.1, 50.0, 99.9, 100.0}) {
      const double q = s.quantile(p);
      if (!(q >= s.min() && q <= s.max())) tokenbench::fuzz::fail("a quantile outside [min, max]");
    }
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
