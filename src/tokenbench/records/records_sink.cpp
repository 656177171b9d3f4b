#include "tokenbench/records/records_sink.h"

#include "tokenbench/records/results_dir.h"
#include "tokenbench/records/zstd_stream.h"

namespace tokenbench::records {

std::string requests_file_name(RecordsCompression c) {
  return c == RecordsCompression::kZstd ? kRequestsZstFile : kRequestsFile;
}

RecordsSink::RecordsSink(const std::string& path, RecordsCompression compression)
    : file_(open_for_writing(path)) {
  if (compression == RecordsCompression::kZstd) {
    try {
      zstd_ = std::make_unique<ZstdWriter>(file_);
    } catch (...) {
      std::fclose(file_);
      throw;
    }
  }
}

RecordsSink::~RecordsSink() { close(); }

bool RecordsSink::append(std::string_view bytes) {
  if (zstd_) return zstd_->write(bytes);
  return std::fwrite(bytes.data(), 1, bytes.size(), file_) == bytes.size();
}

bool RecordsSink::flush() { return zstd_ ? zstd_->flush() : std::fflush(file_) == 0; }

bool RecordsSink::close() {
  if (file_ == nullptr) return true;
  bool ok = zstd_ ? zstd_->end() : std::fflush(file_) == 0;
  zstd_.reset();
  ok &= std::fclose(file_) == 0;
  file_ = nullptr;
  return ok;
}

}  // namespace tokenbench::records
