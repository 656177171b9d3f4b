#include "tokenbench/workload/file_lines.h"

#include <stdexcept>

namespace tokenbench::workload {

FileLines::FileLines(const FileLines& other)
    : path_(other.path_), label_(other.label_), offset_(other.offset_), number_(other.number_) {}

FileLines& FileLines::operator=(const FileLines& other) {
  if (this != &other) {
    path_ = other.path_;
    label_ = other.label_;
    offset_ = other.offset_;
    number_ = other.number_;
    in_.reset();
    reader_.reset();
  }
  return *this;
}

bool FileLines::next(std::string& line, std::size_t& number) {
  if (in_ == nullptr) {
    in_ = std::make_unique<std::ifstream>(path_, std::ios::binary);
    if (!*in_) throw std::runtime_error("cannot open " + label_ + " again: was it removed?");
    in_->seekg(offset_);
    reader_ = std::make_unique<core::LineReader>(*in_, label_);
  }
  while (reader_->next(line)) {
    ++number_;
    // The bytes read: the line and its '\n' (one past the end on a last line without one).
    offset_ += static_cast<std::int64_t>(line.size()) + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    number = number_;
    return true;
  }
  return false;
}

void FileLines::ended_early() const {
  throw std::runtime_error(label_ + " ended after line " + std::to_string(number_) +
                           ", before the prompts it held when the run started: was it changed "
                           "during the run?");
}

}  // namespace tokenbench::workload
