#include "tokenbench/client/request_id.h"

#include <chrono>
#include <cstdio>
#include <random>

namespace tokenbench::client {
namespace {

// splitmix64's finalizer: a bijection of 64-bit values, so distinct inputs give distinct ids.
std::uint64_t mix64(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

void write_hex(char* out, std::uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (int i = 15; i >= 0; --i) {
    out[i] = kDigits[v & 0xF];
    v >>= 4;
  }
}

}  // namespace

std::uint64_t new_run_id() {
  std::random_device device;
  const std::uint64_t random = (std::uint64_t{device()} << 32) ^ device();
  const auto wall =
      static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  const std::uint64_t id = mix64(random ^ mix64(wall));
  return id == 0 ? 1 : id;
}

TraceId make_trace_id(std::uint64_t run_id, core::Phase phase, std::uint32_t target,
                      std::uint64_t id) {
  // phase in the top 4 bits, the target in the next 12, the record id in the low 48: distinct for
  // every request a run can hold (ids below 2^48, targets below 4096), then mixed bijectively.
  const std::uint64_t fields = (static_cast<std::uint64_t>(phase) << 60) |
                               ((std::uint64_t{target} & 0xFFF) << 48) |
                               (id & ((std::uint64_t{1} << 48) - 1));
  return TraceId{run_id, mix64(fields ^ 0x5DEECE66DULL)};
}

std::uint64_t make_span_id(const TraceId& trace, std::uint32_t attempt) {
  const std::uint64_t span = mix64(trace.low ^ mix64(trace.high + attempt + 1));
  return span == 0 ? 1 : span;
}

std::string request_id_text(const TraceId& trace) {
  std::string out(32, '0');
  write_hex(out.data(), trace.high);
  write_hex(out.data() + 16, trace.low);
  return out;
}

void IdHeaders::fill(const TraceId& trace, std::uint32_t attempt) {
  char* r = request_id.data();
  std::snprintf(r, request_id.size(), "X-Request-Id: ");
  write_hex(r + 14, trace.high);
  write_hex(r + 30, trace.low);
  r[kRequestIdLen] = '\0';
  char* t = traceparent.data();
  std::snprintf(t, traceparent.size(), "traceparent: 00-");
  write_hex(t + 16, trace.high);
  write_hex(t + 32, trace.low);
  t[48] = '-';
  write_hex(t + 49, make_span_id(trace, attempt));
  t[65] = '-';
  t[66] = '0';
  t[67] = '1';
  t[kTraceparentLen] = '\0';
}

}  // namespace tokenbench::client
