#pragma once

#include <cstddef>

namespace tokenbench::load {

/// Whether measured prompt `p` (0-based) of `n` is one of the `k` sent non-streamed by
/// --nonstream-sample: those where the running quota floor((p + 1) k / n) ticks, i.e. k prompts
/// spread evenly over the n, the last one included (n 40, k 5: prompts 7, 15, 23, 31, 39).
/// Exactly min(k, n) of the n are picked. Pure; deterministic.
inline bool nonstream_pick(std::size_t p, std::size_t n, std::size_t k) {
  if (k == 0 || n == 0) return false;
  if (k >= n) return true;
  return (p + 1) * k / n > p * k / n;
}

}  // namespace tokenbench::load
