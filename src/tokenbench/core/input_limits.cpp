#include "tokenbench/core/input_limits.h"

#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace tokenbench::core {
namespace {

std::atomic<std::int64_t> g_max_line_bytes{kDefaultMaxLineBytes};

}  // namespace

void set_max_line_bytes(std::int64_t bytes) {
  g_max_line_bytes.store(bytes > 0 ? bytes : kDefaultMaxLineBytes, std::memory_order_relaxed);
}

std::int64_t max_line_bytes() { return g_max_line_bytes.load(std::memory_order_relaxed); }

std::string format_bytes(std::int64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g %s", value, kUnits[unit]);
  return buf;
}

std::string line_too_long_message(std::string_view label, std::size_t line,
                                  std::int64_t max_bytes) {
  return std::string(label) + " line " + std::to_string(line) + " is longer than " +
         format_bytes(max_bytes) +
         ", the limit of --max-line-bytes: is it the right file? If so, raise --max-line-bytes";
}

LineReader::LineReader(std::istream& in, std::string label, std::int64_t max_bytes)
    : in_(in),
      label_(std::move(label)),
      max_bytes_(static_cast<std::size_t>(max_bytes > 0 ? max_bytes : kDefaultMaxLineBytes)) {}

bool LineReader::next(std::string& line) {
  line.clear();
  // istream::getline scans its buffer for the '\n' (memchr in libstdc++) a block at a time; a
  // block that ends without one is appended and the next is read, until the limit.
  char block[64 * 1024];
  bool any = false;
  for (;;) {
    in_.getline(block, sizeof block);
    const std::size_t got = static_cast<std::size_t>(in_.gcount());
    if (in_.bad()) throw std::runtime_error(label_ + ": read error");
    any = any || got > 0;
    if (!in_.fail()) {
      // Ended at a '\n' (counted by gcount, not stored) or at the end of the file.
      line.append(block, in_.eof() ? got : got - 1);
      break;
    }
    if (in_.eof()) break;  // nothing more was read
    // The block filled without a '\n': keep it and read on.
    line.append(block, got);
    in_.clear(in_.rdstate() & ~std::ios::failbit);
    if (line.size() > max_bytes_) break;
  }
  if (!any) return false;
  ++number_;
  if (line.size() > max_bytes_) {
    line.clear();
    line.shrink_to_fit();
    throw std::runtime_error(line_too_long_message(label_, number_, max_bytes_));
  }
  return true;
}

}  // namespace tokenbench::core
