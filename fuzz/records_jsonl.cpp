// One requests.jsonl line as `tokenbench report` reads it back: records::record_from_jsonl_line.
// Invariants: it fails only with std::runtime_error (as documented), and a line it accepts
// writes back to a line that reads back to the same record.

#include <stdexcept>

#include "fuzz_support.h"
#include "tokenbench/records/records_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using tokenbench::records::record_from_jsonl_line;
  using tokenbench::records::record_to_jsonl_line;
  tokenbench::core::RequestRecord record;
  try {
    record = record_from_jsonl_line(tokenbench::fuzz::as_view(data, size));
  } catch (const std::runtime_error&) {
    return 0;
  }
  const std::string line = record_to_jsonl_line(record);
  std::string again;
  try {
    again = record_to_jsonl_line(record_from_jsonl_line(line));
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "%s\n%s", e.what(), line.c_str());
    tokenbench::fuzz::fail("a written record does not read back");
  }
  if (again != line) tokenbench::fuzz::fail("a record changed on its way through requests.jsonl");
  return 0;
}
