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

bool zstd_decompress_stream(std::istream& in, const std::function<void(std::string_view)>& each) {
  struct Free {
    void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
  };
  std::unique_ptr<ZSTD_DCtx, Free> dctx(ZSTD_createDCtx());
  if (!dctx) throw ZstdError("zstd: cannot allocate a decompression context");
  std::vector<char> input(ZSTD_DStreamInSize());
  std::vector<char> output(ZSTD_DStreamOutSize());
  std::size_t hint = 0;  // 0 once a frame is complete
  bool any = false;
  while (in) {
    in.read(input.data(), static_cast<std::streamsize>(input.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    any = true;
    ZSTD_inBuffer in_buffer{input.data(), got, 0};
    while (true) {
      ZSTD_outBuffer out{output.data(), output.size(), 0};
      hint = ZSTD_decompressStream(dctx.get(), &out, &in_buffer);
      if (ZSTD_isError(hint)) throw ZstdError(std::string("zstd: ") + ZSTD_getErrorName(hint));
      if (out.pos > 0) each(std::string_view(output.data(), out.pos));
      // This input is done when it is taken and zstd had no more output than fitted.
      if (in_buffer.pos == in_buffer.size && out.pos < out.size) break;
    }
  }
  return any && hint != 0;
}

}  // namespace tokenbench::records
