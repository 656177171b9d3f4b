#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>

namespace tokenbench::core {

// The bounds on what tokenbench reads from files and from servers, so that a hostile or broken
// input is refused in one line instead of exhausting the stack or the memory
// (docs/RELIABILITY.md, "Limits").

/// The deepest nesting of arrays and objects accepted in any JSON document read from a file
/// (datasets, tokenizer and config JSON, summary.json, sweep.json, requests.jsonl) or from a
/// server (stream events, whole replies, /v1/models): `1` is 0 deep, `[]` 1, `[{}]` 2. A deeper
/// document is refused before it is parsed (nlohmann's dump() and copies recurse once per level,
/// and 100,000 levels overflow the stack). Fixed: no real document comes near it.
inline constexpr std::size_t kMaxJsonDepth = 256;

/// The default of --max-line-bytes: the longest line read from a file (16 MiB).
inline constexpr std::int64_t kDefaultMaxLineBytes = std::int64_t{16} << 20;
/// The range of --max-line-bytes.
inline constexpr std::int64_t kMinMaxLineBytes = 1024;
inline constexpr std::int64_t kMaxMaxLineBytes = std::int64_t{1} << 32;

/// Sets the longest line any file reader accepts (--max-line-bytes); one setting for the whole
/// process, like the TLS options: datasets, --input-dist empirical files and requests.jsonl
/// read back all follow it. Call before reading.
void set_max_line_bytes(std::int64_t bytes);
/// The longest line accepted: kDefaultMaxLineBytes unless set_max_line_bytes said otherwise.
std::int64_t max_line_bytes();

/// "16 MiB", "1.5 KiB", "100 bytes": a byte count for messages.
std::string format_bytes(std::int64_t bytes);

/// Reads the lines of a file without ever holding more than max_bytes of one line: a longer
/// line throws before the rest of it is read (so /dev/zero, or a 1 GB line, costs at most
/// max_bytes). Lines are returned without their '\n' (a '\r' before it stays).
class LineReader {
 public:
  /// `label` names the file in errors ("dataset data.jsonl"); `in` must outlive the reader.
  LineReader(std::istream& in, std::string label, std::int64_t max_bytes = max_line_bytes());

  /// The next line into `line`; false at the end of the file. Throws std::runtime_error
  /// "LABEL line N is longer than LIMIT (--max-line-bytes): ..." on a line over the limit.
  bool next(std::string& line);
  /// The number of the line last read, from 1.
  std::size_t number() const { return number_; }

 private:
  std::istream& in_;
  std::string label_;
  std::size_t max_bytes_;
  std::size_t number_ = 0;
};

/// The one-line error of a line over the limit: "LABEL line N is longer than 16 MiB, the limit
/// of --max-line-bytes: ...".
std::string line_too_long_message(std::string_view label, std::size_t line, std::int64_t max_bytes);

}  // namespace tokenbench::core
