#include "tokenbench/workload/csv_reader.h"

#include <fstream>
#include <stdexcept>
#include <string>

#include "tokenbench/core/input_limits.h"

namespace tokenbench::workload {

CsvFile read_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open dataset file " + path + ": check --dataset-path");
  // Read as a stream, a character at a time, so that no record is held past --max-line-bytes
  // (a record may span lines inside quotes: its first line is the one named).
  std::streambuf& text = *in.rdbuf();
  constexpr int kEnd = std::char_traits<char>::eof();
  const auto max_bytes = static_cast<std::size_t>(core::max_line_bytes());
  const auto fail = [&path](std::size_t line, const std::string& what) {
    throw std::runtime_error("dataset " + path + " line " + std::to_string(line) + ": " + what);
  };

  CsvFile out;
  std::vector<CsvRecord> records;
  CsvRecord record;
  std::string field;
  std::size_t line = 1;
  std::size_t record_bytes = 0;
  record.line = 1;
  bool blank = true;  // nothing on this record yet
  const auto end_field = [&] {
    record.fields.push_back(std::move(field));
    field.clear();
  };
  const auto end_record = [&] {
    if (!blank) {
      end_field();
      records.push_back(std::move(record));
    }
    record = CsvRecord{};
    field.clear();
    blank = true;
    record_bytes = 0;
  };
  // The next character, counted against the record's bound.
  const auto take = [&] {
    if (++record_bytes > max_bytes) {
      throw std::runtime_error(
          core::line_too_long_message("dataset " + path, record.line, core::max_line_bytes()));
    }
    return text.sbumpc();
  };
  while (text.sgetc() != kEnd) {
    const char c = static_cast<char>(take());
    if (c == '"' && field.empty()) {
      // A quoted field: up to the closing quote; "" is a quote.
      blank = false;
      const std::size_t opened = line;
      bool closed = false;
      while (text.sgetc() != kEnd) {
        const char q = static_cast<char>(take());
        if (q == '"') {
          if (text.sgetc() == '"') {
            field.push_back('"');
            take();
            continue;
          }
          closed = true;
          break;
        }
        if (q == '\n') ++line;
        field.push_back(q);
      }
      if (!closed) fail(opened, "a quoted field is never closed (a missing '\"')");
      const int after = text.sgetc();
      if (after != kEnd && after != ',' && after != '\n' && after != '\r') {
        fail(line, "text after a closing quote (write a quote inside a field as \"\")");
      }
      continue;
    }
    if (c == ',') {
      blank = false;
      end_field();
    } else if (c == '\r' && text.sgetc() == '\n') {
      // CRLF: the LF ends the record.
    } else if (c == '\n') {
      end_record();
      record.line = ++line;
    } else {
      blank = false;
      field.push_back(c);
    }
  }
  end_record();
  if (records.empty()) throw std::runtime_error("dataset " + path + " is empty: no header row");
  out.header = std::move(records.front().fields);
  for (auto& h : out.header) {
    // A UTF-8 byte order mark and surrounding spaces are not part of a column's name.
    if (&h == &out.header.front() && h.rfind("\xEF\xBB\xBF", 0) == 0) h.erase(0, 3);
    const auto a = h.find_first_not_of(' ');
    const auto b = h.find_last_not_of(' ');
    h = a == std::string::npos ? "" : h.substr(a, b - a + 1);
  }
  out.records.assign(std::make_move_iterator(records.begin() + 1),
                     std::make_move_iterator(records.end()));
  for (const auto& r : out.records) {
    if (r.fields.size() != out.header.size()) {
      fail(r.line, std::to_string(r.fields.size()) + " fields where the header has " +
                       std::to_string(out.header.size()));
    }
  }
  return out;
}

std::size_t CsvFile::column(const std::string& path, const std::string& name,
                            const std::string& hint) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  std::string names;
  for (const auto& h : header) names += (names.empty() ? "" : ", ") + h;
  throw std::runtime_error("dataset " + path + " has no column '" + name + "' (its columns: " +
                           names + ")" + (hint.empty() ? "" : "; name one with " + hint));
}

}  // namespace tokenbench::workload
