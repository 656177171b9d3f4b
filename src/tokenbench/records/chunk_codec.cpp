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

// The dense form's digits (chunk_codec.h): every printable ASCII character but '"' and '\\' (which
// JSON would escape) and '!' (the token count's mark), in order; the first kTerminal end a
// number, the rest carry on to its next digit.
constexpr char kDenseMark = '~';
constexpr char kCountMark = '!';
constexpr std::uint64_t kTerminal = 46;
constexpr std::uint64_t kCarry = 46;
constexpr std::array<char, kTerminal + kCarry> kDigits = [] {
  std::array<char, kTerminal + kCarry> d{};
  std::size_t n = 0;
  for (char c = ' '; c <= '~'; ++c) {
    if (c != '"' && c != '\\' && c != kCountMark) d[n++] = c;
  }
  return d;
}();
constexpr std::array<std::int8_t, 128> kDigitValue = [] {
  std::array<std::int8_t, 128> v{};
  v.fill(-1);
  for (std::size_t k = 0; k < kDigits.size(); ++k) {
    v[static_cast<unsigned char>(kDigits[k])] = static_cast<std::int8_t>(k);
  }
  return v;
}();

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

// One number in the dense form: its digits least significant first, base 46.
void put_dense(std::uint64_t v, std::string& out) {
  while (v >= kTerminal) {
    out.push_back(kDigits[kTerminal + v % kCarry]);
    v /= kCarry;
  }
  out.push_back(kDigits[v]);
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

// Reads one number of the dense form `text` at `pos` for chunk `index`.
std::uint64_t get_dense(std::string_view text, std::size_t& pos, std::size_t index) {
  std::uint64_t v = 0;
  std::uint64_t scale = 1;
  for (int digits = 0; pos < text.size(); ++digits) {
    const auto c = static_cast<unsigned char>(text[pos]);
    const std::int8_t d = c < kDigitValue.size() ? kDigitValue[c] : std::int8_t{-1};
    if (d < 0) {
      throw std::runtime_error(
          fmt::format("chunks has '{}' at offset {}, not one of its digits",
                      c >= 0x20 && c < 0x7f ? std::string(1, static_cast<char>(c)) : "\\x??", pos));
    }
    ++pos;
    const auto value = static_cast<std::uint64_t>(static_cast<unsigned char>(d));
    const std::uint64_t digit = value < kTerminal ? value : value - kTerminal;
    // 12 digits of base 46 hold 64 bits; beyond, or past 2^64, is not a number this wrote.
    if (digits == 12 || digit > (std::numeric_limits<std::uint64_t>::max() - v) / scale) break;
    v += digit * scale;
    if (value < kTerminal) return v;
    scale *= kCarry;
  }
  if (pos >= text.size())
    throw std::runtime_error(fmt::format("chunks is cut short in chunk {}", index));
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
  std::string out;
  if (chunks.empty()) return out;
  out.reserve(chunks.size() * 2 + 4);
  out.push_back(kDenseMark);
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
    if (tokens != 1) {
      out.push_back(kCountMark);
      put_dense(static_cast<std::uint64_t>(tokens), out);
    }
    put_dense(d, out);
  }
  return out;
}

namespace {

// Turns each chunk's (d, tokens), in order, into stamps on the run's clock, checking their bounds.
class Placer {
 public:
  explicit Placer(Nanos sent) : sent_(sent) {}

  void add(std::uint64_t d, std::uint64_t tokens, std::vector<core::ChunkStamp>& out) {
    const std::size_t index = out.size();
    if (index == 0) {
      us_ = base_us(sent_) + unzigzag(d);
      if (us_ < 0 || us_ > kMaxStampUs) {
        throw std::runtime_error(fmt::format(
            "chunks: chunk 0 is at {} us since the run's origin, outside 0 to 2^62 ns", us_));
      }
    } else {
      if (d > static_cast<std::uint64_t>(kMaxStampUs - us_)) {
        throw std::runtime_error(
            fmt::format("chunks: chunk {} is more than 2^62 ns after the run's origin", index));
      }
      us_ += static_cast<std::int64_t>(d);
    }
    if (tokens > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
      throw std::runtime_error(
          fmt::format("chunks: chunk {} carries {} tokens, more than 2^31 - 1", index, tokens));
    }
    out.push_back(core::ChunkStamp{us_ * kNsPerUs, static_cast<std::int32_t>(tokens)});
  }

 private:
  Nanos sent_;
  std::int64_t us_ = 0;
};

// The form written before the dense one: LEB128 varints, v = d << 1 | (tokens != 1), as base64.
std::vector<core::ChunkStamp> from_base64_form(std::string_view field, Nanos sent) {
  const std::string bytes = from_base64(field);
  std::vector<core::ChunkStamp> out;
  out.reserve(bytes.size() / 2);
  Placer placer(sent);
  for (std::size_t pos = 0; pos < bytes.size();) {
    const std::size_t index = out.size();
    const std::uint64_t v = get_varint(bytes, pos, index);
    placer.add(v >> 1, (v & 1) != 0 ? get_varint(bytes, pos, index) : 1, out);
  }
  return out;
}

}  // namespace

std::vector<core::ChunkStamp> chunk_stamps_from_field(std::string_view field, Nanos sent) {
  if (field.empty() || field[0] != kDenseMark) return from_base64_form(field, sent);
  std::vector<core::ChunkStamp> out;
  out.reserve(field.size() / 2);
  Placer placer(sent);
  for (std::size_t pos = 1; pos < field.size();) {
    const std::size_t index = out.size();
    std::uint64_t tokens = 1;
    if (field[pos] == kCountMark) tokens = get_dense(field, ++pos, index);
    placer.add(get_dense(field, pos, index), tokens, out);
  }
  return out;
}

}  // namespace tokenbench::records
