#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>

#include "tokenbench/core/input_limits.h"

namespace tokenbench::workload {

/// A place in a line-based dataset file (jsonl, lines) that reads on from there: the prompts of
/// a long file made as the run asks for them, so that a file of any size costs one line of
/// memory. A copy stands at the same place and reads with a stream of its own (opened at its
/// first read), so copies may read on different threads. Lines are bounded as
/// core::LineReader bounds them (--max-line-bytes).
class FileLines {
 public:
  /// `label` names the file in errors ("dataset data.jsonl").
  FileLines(std::string path, std::string label)
      : path_(std::move(path)), label_(std::move(label)) {}
  FileLines(const FileLines& other);
  FileLines& operator=(const FileLines& other);
  FileLines(FileLines&&) = default;
  FileLines& operator=(FileLines&&) = default;
  ~FileLines() = default;

  /// The next line holding more than blanks (spaces, tabs, a '\r'), and its number from 1; false
  /// at the end of the file. Throws std::runtime_error on a file that cannot be opened any more
  /// or a line over the limit.
  bool next(std::string& line, std::size_t& number);
  /// Throws the one-line error of a file that ended before the prompts it was counted to hold.
  [[noreturn]] void ended_early() const;

 private:
  std::string path_;
  std::string label_;
  std::int64_t offset_ = 0;  // bytes before the next line
  std::size_t number_ = 0;   // lines before it
  std::unique_ptr<std::ifstream> in_;
  // Reads in_; its line numbers (in errors) are right from a file's start, where every check
  // reads from.
  std::unique_ptr<core::LineReader> reader_;
};

}  // namespace tokenbench::workload
