#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace tokenbench::records {

/// Compresses bytes into one zstd frame appended to a FILE it does not own. flush() makes every
/// byte given so far decodable from what the file holds, so a process killed later leaves a
/// readable prefix; end() closes the frame. Not thread-safe: one owner thread.
class ZstdWriter {
 public:
  /// `file` must stay open until the writer is destroyed. Throws std::runtime_error when zstd
  /// cannot allocate its context.
  explicit ZstdWriter(std::FILE* file, int level = 3);
  ~ZstdWriter();
  ZstdWriter(const ZstdWriter&) = delete;
  ZstdWriter& operator=(const ZstdWriter&) = delete;

  /// Compresses `bytes`; writes whatever compressed output is ready. False on a write error.
  bool write(std::string_view bytes);
  /// Ends the current zstd block and writes it (ZSTD_e_flush), then fflush()es the file.
  bool flush();
  /// Ends the frame (ZSTD_e_end) and fflush()es. Writing after it starts a new frame.
  bool end();

 private:
  bool drive(std::string_view bytes, int directive);

  std::FILE* file_;
  void* cctx_;  // ZSTD_CCtx*, kept out of this header
  std::string out_;
};

/// True when `data` starts with a zstd frame's magic number.
bool is_zstd(std::string_view data);

/// What zstd_decompress decoded.
struct ZstdDecoded {
  std::string text;
  /// The data ended inside a frame (a writer killed before its end): `text` holds what the
  /// complete blocks before the cut decode to.
  bool cut = false;
};

/// Decodes one or more concatenated zstd frames. A last frame cut short is not an error: what it
/// decoded so far is kept and `cut` says so. Throws std::runtime_error with zstd's one-line
/// reason on data that is not zstd or is damaged.
ZstdDecoded zstd_decompress(std::string_view data);

}  // namespace tokenbench::records
