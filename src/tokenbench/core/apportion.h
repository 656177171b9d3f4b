#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace tokenbench::core {

/// The largest total apportion() splits: its parts are int32 and callers add to them.
inline constexpr std::int64_t kMaxApportionTotal = std::int64_t{1} << 30;

/// Splits `total` into parts proportional to `weights` (largest-remainder apportionment), so that
/// the parts sum to `total` exactly and equal the weights when they already sum to it. All parts
/// are 0 when the weights sum to 0 or `total` is not positive. A total above kMaxApportionTotal
/// (a server's usage may say anything) is split as kMaxApportionTotal.
inline std::vector<std::int32_t> apportion(const std::vector<std::int32_t>& weights,
                                           std::int64_t total) {
  // Unclamped, total * weight overflowed and a part past INT32_MAX was cut, after which the loop
  // that hands out the remainders ran about `total` times: a worker hung on one reply.
  total = std::min(total, kMaxApportionTotal);
  const std::size_t n = weights.size();
  std::vector<std::int32_t> parts(n, 0);
  const std::int64_t sum = std::accumulate(weights.begin(), weights.end(), std::int64_t{0});
  if (n == 0 || total <= 0 || sum <= 0) return parts;
  std::vector<std::pair<std::int64_t, std::size_t>> remainders;  // numerators of the fractions
  remainders.reserve(n);
  std::int64_t given = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t scaled = total * weights[i];
    parts[i] = static_cast<std::int32_t>(scaled / sum);
    given += parts[i];
    remainders.emplace_back(scaled % sum, i);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::int64_t k = 0; k < total - given; ++k) {
    ++parts[remainders[static_cast<std::size_t>(k) % n].second];
  }
  return parts;
}

}  // namespace tokenbench::core
