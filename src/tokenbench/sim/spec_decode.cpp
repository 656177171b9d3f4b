#include "tokenbench/sim/spec_decode.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

#include "tokenbench/sim/sim_rng.h"

namespace tokenbench::sim {
namespace {

// Keeps the acceptance draws apart from every other use of the seed.
constexpr std::uint64_t kSpecDecodeStream = 0x5bec'dec0'de00'0001ULL;

[[noreturn]] void bad(std::string_view text, std::string_view why) {
  throw std::invalid_argument("--spec-decode '" + std::string(text) + "': " + std::string(why) +
                              " (expected k=K,accept=P with K in 1..16 and P in [0, 1))");
}

}  // namespace

SpecDecodeConfig parse_spec_decode(std::string_view text) {
  SpecDecodeConfig c;
  bool have_k = false;
  bool have_p = false;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) bad(text, "'" + std::string(item) + "' is not KEY=VALUE");
    const std::string_view key = item.substr(0, eq);
    const std::string_view value = item.substr(eq + 1);
    const char* end = value.data() + value.size();
    if (key == "k") {
      std::int64_t k = 0;
      const auto [p, ec] = std::from_chars(value.data(), end, k);
      if (ec != std::errc{} || p != end || k < 1 || k > kMaxSpecTokens) {
        bad(text, "k must be an integer in 1..16");
      }
      c.k = k;
      have_k = true;
    } else if (key == "accept") {
      double v = 0;
      const auto [p, ec] = std::from_chars(value.data(), end, v);
      if (ec != std::errc{} || p != end || !std::isfinite(v) || v < 0 || v >= 1) {
        bad(text, "accept must be a number in [0, 1)");
      }
      c.accept = v;
      have_p = true;
    } else {
      bad(text, "unknown key '" + std::string(key) + "'");
    }
  }
  if (!have_k || !have_p) bad(text, "both k and accept are required");
  return c;
}

std::int64_t draw_accepted_drafts(std::uint64_t seed, std::uint64_t request_id,
                                  std::int64_t position, std::int64_t k, double p) {
  SimRng rng(mix_keys(seed ^ kSpecDecodeStream, request_id, static_cast<std::uint64_t>(position)));
  std::int64_t accepted = 0;
  while (accepted < k && rng.unit() < p) ++accepted;
  return accepted;
}

void SpecDecodeCounts::record(std::int64_t k, std::int64_t accepted_tokens) {
  ++drafts;
  draft_tokens += k;
  accepted += accepted_tokens;
  if (static_cast<std::int64_t>(accepted_per_pos.size()) < k) {
    accepted_per_pos.resize(static_cast<std::size_t>(k), 0);
  }
  for (std::int64_t i = 0; i < accepted_tokens; ++i)
    ++accepted_per_pos[static_cast<std::size_t>(i)];
}

void SpecDecodeCounts::merge(const SpecDecodeCounts& other) {
  drafts += other.drafts;
  draft_tokens += other.draft_tokens;
  accepted += other.accepted;
  if (accepted_per_pos.size() < other.accepted_per_pos.size()) {
    accepted_per_pos.resize(other.accepted_per_pos.size(), 0);
  }
  for (std::size_t i = 0; i < other.accepted_per_pos.size(); ++i) {
    accepted_per_pos[i] += other.accepted_per_pos[i];
  }
}

void SpecDecodeCounts::clear() {
  drafts = draft_tokens = accepted = 0;
  std::fill(accepted_per_pos.begin(), accepted_per_pos.end(), 0);
}

}  // namespace tokenbench::sim
