#pragma once

#include <cstdio>
#include <functional>
#include <istream>
#include <stdexcept>
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

/// What the decoders throw on data that is not zstd or is damaged: zstd's one-line reason.
class ZstdError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Decodes the zstd frames read from an istream a block at a time, on demand, so that memory does
/// not grow with the file. Not thread-safe.
class ZstdReader {
 public:
  /// `in` must outlive the reader. Throws ZstdError when zstd cannot allocate its context.
  explicit ZstdReader(std::istream& in);
  ~ZstdReader();
  ZstdReader(const ZstdReader&) = delete;
  ZstdReader& operator=(const ZstdReader&) = delete;

  /// The next block of decoded bytes into `block` (valid until the next call); false at the end
  /// of the input. Throws ZstdError on data that is not zstd or is damaged.
  bool next(std::string_view& block);
  /// At the end: the last frame was cut short (a writer killed before its end); what its complete
  /// blocks decode to was handed over.
  bool cut() const { return any_ && hint_ != 0; }

 private:
  std::istream& in_;
  void* dctx_;  // ZSTD_DCtx*, kept out of this header
  std::string input_, output_;
  std::size_t in_pos_ = 0, in_size_ = 0;
  bool output_full_ = false;  // the last call filled the output: zstd may hold more
  std::size_t hint_ = 0;      // 0 once a frame is complete
  bool any_ = false;
};

/// Decodes the zstd frames read from `in` a block at a time, handing each block of decoded bytes
/// to `each` (which may throw), so that memory does not grow with the file. Returns true when the
/// last frame was cut short (a writer killed before its end: what its complete blocks decode to
/// was handed over). Throws ZstdError on data that is not zstd or is damaged.
bool zstd_decompress_stream(std::istream& in, const std::function<void(std::string_view)>& each);

/// Decodes one or more concatenated zstd frames. A last frame cut short is not an error: what it
/// decoded so far is kept and `cut` says so. Throws std::runtime_error with zstd's one-line
/// reason (a ZstdError) on data that is not zstd or is damaged.
ZstdDecoded zstd_decompress(std::string_view data);

}  // namespace tokenbench::records
