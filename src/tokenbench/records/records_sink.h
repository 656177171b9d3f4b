#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tokenbench/core/run_config.h"

namespace tokenbench::records {

class ZstdWriter;

/// How requests.jsonl is stored (--records-compress; core/run_config.h).
using core::RecordsCompression;

/// "none" | "zstd" (core::kRecordsCompressionNames).
inline std::string_view to_string(RecordsCompression c) {
  return core::kRecordsCompressionNames.name(c);
}
inline std::optional<RecordsCompression> records_compression_from_string(std::string_view name) {
  return core::kRecordsCompressionNames.parse(name);
}

/// The requests file's name in a results directory: requests.jsonl, or requests.jsonl.zst.
std::string requests_file_name(RecordsCompression c);

/// Where the recorder's lines go: a file, plain or zstd-compressed. Each flush() leaves the file
/// readable up to the last line appended, so that a process killed later keeps them. Not
/// thread-safe: one owner thread (the recorder's).
class RecordsSink {
 public:
  /// Opens (truncates) `path` as open_for_writing does (never through a link). Throws
  /// std::runtime_error naming the path when it cannot.
  RecordsSink(const std::string& path, RecordsCompression compression);
  ~RecordsSink();
  RecordsSink(const RecordsSink&) = delete;
  RecordsSink& operator=(const RecordsSink&) = delete;

  /// Appends bytes (whole lines). False on a write error.
  bool append(std::string_view bytes);
  /// Makes everything appended so far readable from the file (for zstd: ends the current block).
  bool flush();
  /// Flushes, ends the zstd frame and closes the file. Idempotent.
  bool close();

 private:
  std::FILE* file_ = nullptr;
  std::unique_ptr<ZstdWriter> zstd_;
};

}  // namespace tokenbench::records
