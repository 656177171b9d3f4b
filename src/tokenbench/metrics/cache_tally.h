#pragma once

#include <algorithm>
#include <cstdint>

#include "tokenbench/core/request.h"
#include "tokenbench/metrics/percentile.h"

namespace tokenbench::metrics {

/// What the server said of its prefix cache over a set of successful requests: the requests
/// whose usage gave cached tokens, their prompt tokens, and the tokens taken from the cache and
/// written to it. The hit rate is cached over prompt tokens of those requests (docs/METRICS.md,
/// "Prefix caching"). Plain data.
struct CacheTally {
  std::int64_t reported = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t cached_tokens = 0;
  std::int64_t cache_write_tokens = 0;
  /// The ideal prefix cache (--cache-block, core/ideal_cache.h) over the requests it saw, in its
  /// own tokens (words).
  std::int64_t ideal_reported = 0;
  std::int64_t ideal_prompt_tokens = 0;
  std::int64_t ideal_cached_tokens = 0;

  /// Counts a successful request (one whose usage did not give cached tokens is left out of the
  /// server's figures, one the ideal cache did not see out of its).
  void add(const core::RequestRecord& r) {
    if (r.ideal_prompt_tokens >= 0) {
      ++ideal_reported;
      ideal_prompt_tokens += r.ideal_prompt_tokens;
      ideal_cached_tokens += std::max<std::int64_t>(0, r.ideal_cached_tokens);
    }
    if (r.cached_tokens < 0) return;
    ++reported;
    prompt_tokens += r.prompt_tokens;
    cached_tokens += r.cached_tokens;
    cache_write_tokens += r.cache_write_tokens > 0 ? r.cache_write_tokens : 0;
  }
  /// cached / prompt tokens; kUndefined when no request reported or their prompts were empty.
  double hit_rate() const {
    return prompt_tokens > 0
               ? static_cast<double>(cached_tokens) / static_cast<double>(prompt_tokens)
               : kUndefined;
  }
  /// The ideal cache's cached over prompt tokens; kUndefined when it saw no request.
  double ideal_hit_rate() const {
    return ideal_prompt_tokens > 0
               ? static_cast<double>(ideal_cached_tokens) / static_cast<double>(ideal_prompt_tokens)
               : kUndefined;
  }
};

}  // namespace tokenbench::metrics
