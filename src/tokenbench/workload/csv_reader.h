#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tokenbench::workload {

/// One record of a CSV file and the line it starts on (1-based), for error messages.
struct CsvRecord {
  std::size_t line = 0;
  std::vector<std::string> fields;
};

/// A CSV file as RFC 4180 writes it: comma-separated fields, a field in double quotes may hold
/// commas, line breaks and doubled quotes; CRLF or LF line ends; blank lines skipped. The first
/// record is the header. Throws std::runtime_error naming the file and line for an unterminated
/// quote or text after a closing quote, and when the file cannot be opened.
struct CsvFile {
  std::vector<std::string> header;
  std::vector<CsvRecord> records;

  /// The index of column `name` in the header; throws std::runtime_error naming the file, the
  /// column, the columns there are and `hint` (the flag that names it) when there is none.
  std::size_t column(const std::string& path, const std::string& name,
                     const std::string& hint) const;
};
CsvFile read_csv(const std::string& path);

}  // namespace tokenbench::workload
