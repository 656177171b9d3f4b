#include "tokenbench/records/chunk_codec.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace tokenbench::records {
namespace {

using core::kNever;
using core::Nanos;

constexpr std::int64_t kNsPerUs = 1000;
// Stamps are nanoseconds from 0 to 2^62 (records_io.h): in microseconds, up to this.
constexpr std::int64_t kMaxStampUs = (std::int64_t{1} << 62) / kNsPerUs;
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::int64_t floor_us(Nanos ns) {
  const std::int64_t q = ns / kNsPerUs;
  return (ns % kNsPerUs < 0) ? q - 1 : q;
}

// The microsecond the first chunk is measured from.
std::int64_t base_us(Nanos sent) { return sent == kNever ? 0 : floor_us(sent); }

std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}

std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

void put_varint(std::uint64_t v, std::string& out) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

std::string to_base64(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  std::size_t i = 0;
  const auto at = [&](std::size_t k) { return static_cast<std::uint8_t>(bytes[k]); };
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t n = at(i) << 16 | at(i + 1) << 8 | at(i + 2);
    out.push_back(kAlphabet[n >> 18]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(kAlphabet[(n >> 6) & 63]);
    out.push_back(kAlphabet[n & 63]);
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    const std::uint32_t n = at(i) << 16 | (rest == 2 ? at(i + 1) << 8 : 0);
    out.push_back(kAlphabet[n >> 18]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    if (rest == 2) out.push_back(kAlphabet[(n >> 6) & 63]);
  }
  return out;
}

std::string from_base64(std::string_view text) {
  static const std::array<std::int8_t, 256> kValue = [] {
    std::array<std::int8_t, 256> v{};
    v.fill(-1);
    for (int k = 0; k < 64; ++k)
      v[static_cast<std::uint8_t>(kAlphabet[k])] = static_cast<int8_t>(k);
    return v;
  }();
  if (text.size() % 4 == 1) {
    throw std::runtime_error(
        fmt::format("chunks has {} characters, not a length base64 can have", text.size()));
  }
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t bits = 0;
  int held = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::int8_t v = kValue[static_cast<std::uint8_t>(text[i])];
    if (v < 0) {
      throw std::runtime_error(
          fmt::format("chunks has '{}' at offset {}, not a base64 character (no padding)",
                      text[i] >= 0x20 && text[i] < 0x7f ? std::string(1, text[i]) : "\\x??", i));
    }
    bits = bits << 6 | static_cast<std::uint32_t>(v);
    held += 6;
    if (held >= 8) {
      held -= 8;
      out.push_back(static_cast<char>((bits >> held) & 0xff));
    }
  }
  return out;
}

// Reads one varint of `bytes` at `pos` for chunk `index`.
std::uint64_t get_varint(std::string_view bytes, std::size_t& pos, std::size_t index) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= bytes.size()) {
      throw std::runtime_error(fmt::format("chunks is cut short in chunk {}", index));
    }
    const auto byte = static_cast<std::uint8_t>(bytes[pos++]);
    if (shift == 63 && byte > 1) break;
    v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return v;
  }
  throw std::runtime_error(fmt::format("chunks has a number over 64 bits in chunk {}", index));
}

}  // namespace

std::vector<core::ChunkStamp> quantize_chunk_stamps(std::span<const core::ChunkStamp> chunks) {
  std::vector<core::ChunkStamp> out(chunks.begin(), chunks.end());
  quantize_chunk_stamps_in_place(out);
  return out;
}

void quantize_chunk_stamps_in_place(std::vector<core::ChunkStamp>& chunks) {
  std::int64_t prev = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    core::ChunkStamp& c = chunks[i];
    const std::int64_t us = std::max(floor_us(c.t), i == 0 ? std::int64_t{0} : prev);
    c = core::ChunkStamp{us * kNsPerUs, std::max(c.tokens, 0)};
    prev = us;
  }
}

std::string chunk_stamps_to_field(std::span<const core::ChunkStamp> chunks, Nanos sent) {
  std::string bytes;
  bytes.reserve(chunks.size() * 2 + 4);
  std::int64_t prev = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const core::ChunkStamp& c = chunks[i];
    std::int64_t us = std::max(floor_us(c.t), std::int64_t{0});
    std::uint64_t d = 0;
    if (i == 0) {
      d = zigzag(us - base_us(sent));
    } else {
      us = std::max(us, prev);
      d = static_cast<std::uint64_t>(us - prev);
    }
    prev = us;
    const std::int32_t tokens = std::max(c.tokens, 0);
    put_varint(d << 1 | (tokens != 1 ? 1u : 0u), bytes);
    if (tokens != 1) put_varint(static_cast<std::uint64_t>(tokens), bytes);
  }
  return to_base64(bytes);
}

std::vector<core::ChunkStamp> chunk_stamps_from_field(std::string_view field, Nanos sent) {
  const std::string bytes = from_base64(field);
  std::vector<core::ChunkStamp> out;
  out.reserve(bytes.size() / 2);
  std::int64_t us = 0;
  for (std::size_t pos = 0; pos < bytes.size();) {
    const std::size_t index = out.size();
    const std::uint64_t v = get_varint(bytes, pos, index);
    const std::uint64_t d = v >> 1;
    if (index == 0) {
      us = base_us(sent) + unzigzag(d);
      if (us < 0 || us > kMaxStampUs) {
        throw std::runtime_error(fmt::format(
            "chunks: chunk 0 is at {} us since the run's origin, outside 0 to 2^62 ns", us));
      }
    } else {
      if (d > static_cast<std::uint64_t>(kMaxStampUs - us)) {
        throw std::runtime_error(
            fmt::format("chunks: chunk {} is more than 2^62 ns after the run's origin", index));
      }
      us += static_cast<std::int64_t>(d);
    }
    std::int32_t tokens = 1;
    if (v & 1) {
      const std::uint64_t n = get_varint(bytes, pos, index);
      if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
        throw std::runtime_error(
            fmt::format("chunks: chunk {} carries {} tokens, more than 2^31 - 1", index, n));
      }
      tokens = static_cast<std::int32_t>(n);
    }
    out.push_back(core::ChunkStamp{us * kNsPerUs, tokens});
  }
  return out;
}

}  // namespace tokenbench::records
