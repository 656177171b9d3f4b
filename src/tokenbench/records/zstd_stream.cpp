#include "tokenbench/records/zstd_stream.h"

#include <zstd.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

namespace tokenbench::records {
namespace {

ZSTD_CCtx* cctx_of(void* p) { return static_cast<ZSTD_CCtx*>(p); }

}  // namespace

ZstdWriter::ZstdWriter(std::FILE* file, int level) : file_(file), cctx_(ZSTD_createCCtx()) {
  if (cctx_ == nullptr) throw std::runtime_error("zstd: cannot allocate a compression context");
  ZSTD_CCtx_setParameter(cctx_of(cctx_), ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx_of(cctx_), ZSTD_c_checksumFlag, 1);
  out_.resize(ZSTD_CStreamOutSize());
}

ZstdWriter::~ZstdWriter() { ZSTD_freeCCtx(cctx_of(cctx_)); }

bool ZstdWriter::write(std::string_view bytes) { return drive(bytes, ZSTD_e_continue); }

bool ZstdWriter::flush() { return drive({}, ZSTD_e_flush) && std::fflush(file_) == 0; }

bool ZstdWriter::end() { return drive({}, ZSTD_e_end) && std::fflush(file_) == 0; }

bool ZstdWriter::drive(std::string_view bytes, int directive) {
  const auto mode = static_cast<ZSTD_EndDirective>(directive);
  ZSTD_inBuffer in{bytes.data(), bytes.size(), 0};
  bool ok = true;
  while (true) {
    ZSTD_outBuffer out{out_.data(), out_.size(), 0};
    const std::size_t left = ZSTD_compressStream2(cctx_of(cctx_), &out, &in, mode);
    if (ZSTD_isError(left)) return false;
    ok &= std::fwrite(out_.data(), 1, out.pos, file_) == out.pos;
    // continue: done once the input is taken; flush and end: once zstd holds nothing back.
    const bool done = mode == ZSTD_e_continue ? in.pos == in.size : left == 0;
    if (done) return ok;
  }
}

bool is_zstd(std::string_view data) {
  if (data.size() < 4) return false;
  std::uint32_t magic = 0;
  for (int i = 3; i >= 0; --i) magic = magic << 8 | static_cast<std::uint8_t>(data[i]);
  return magic == ZSTD_MAGICNUMBER;
}

ZstdDecoded zstd_decompress(std::string_view data) {
  struct Free {
    void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
  };
  std::unique_ptr<ZSTD_DCtx, Free> dctx(ZSTD_createDCtx());
  if (!dctx) throw ZstdError("zstd: cannot allocate a decompression context");
  ZstdDecoded decoded;
  std::vector<char> buffer(ZSTD_DStreamOutSize());
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  std::size_t hint = 0;  // 0 once a frame is complete
  while (true) {
    ZSTD_outBuffer out{buffer.data(), buffer.size(), 0};
    hint = ZSTD_decompressStream(dctx.get(), &out, &in);
    if (ZSTD_isError(hint)) {
      throw ZstdError(std::string("zstd: ") + ZSTD_getErrorName(hint));
    }
    decoded.text.append(buffer.data(), out.pos);
    // Done when the input is taken and zstd had no more output to give than fitted.
    if (in.pos == in.size && out.pos < out.size) break;
  }
  decoded.cut = hint != 0;
  return decoded;
}

ZstdReader::ZstdReader(std::istream& in)
    : in_(in),
      dctx_(ZSTD_createDCtx()),
      input_(ZSTD_DStreamInSize(), '\0'),
      output_(ZSTD_DStreamOutSize(), '\0') {
  if (dctx_ == nullptr) throw ZstdError("zstd: cannot allocate a decompression context");
}

ZstdReader::~ZstdReader() { ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(dctx_)); }

bool ZstdReader::next(std::string_view& block) {
  while (true) {
    // Input left, or output that filled the buffer (zstd may hold more): decode on.
    if (in_pos_ < in_size_ || output_full_) {
      ZSTD_inBuffer in{input_.data(), in_size_, in_pos_};
      ZSTD_outBuffer out{output_.data(), output_.size(), 0};
      hint_ = ZSTD_decompressStream(static_cast<ZSTD_DCtx*>(dctx_), &out, &in);
      if (ZSTD_isError(hint_)) throw ZstdError(std::string("zstd: ") + ZSTD_getErrorName(hint_));
      in_pos_ = in.pos;
      output_full_ = out.pos == out.size;
      if (out.pos > 0) {
        block = std::string_view(output_.data(), out.pos);
        return true;
      }
      if (in_pos_ < in_size_) continue;
    }
    if (!in_) return false;
    in_.read(input_.data(), static_cast<std::streamsize>(input_.size()));
    in_size_ = static_cast<std::size_t>(in_.gcount());
    in_pos_ = 0;
    if (in_size_ == 0) return false;
    any_ = true;
  }
}

bool zstd_decompress_stream(std::istream& in, const std::function<void(std::string_view)>& each) {
  ZstdReader reader(in);
  for (std::string_view block; reader.next(block);) each(block);
  return reader.cut();
}

}  // namespace tokenbench::records
