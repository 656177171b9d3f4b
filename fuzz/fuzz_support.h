#pragma once

// Helpers shared by the libFuzzer targets in fuzz/. Not part of the library.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

namespace tokenbench::fuzz {

/// The fuzzer's input as a string_view.
inline std::string_view as_view(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Aborts with `what` on stderr: libFuzzer records the input as a crash.
[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

/// A file that the loaders under test read by path, rewritten for each input. One per process,
/// in $TMPDIR (else /tmp), named after the target and the process id; removed at exit.
class ScratchFile {
 public:
  explicit ScratchFile(std::string_view name) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/tokenbench-fuzz-" +
            std::to_string(::getpid()) + "-" + std::string(name);
  }
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  /// Replaces the file's contents with `bytes`; returns its path.
  const std::string& write(std::string_view bytes) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) fail("cannot write the scratch file");
    return path_;
  }

 private:
  std::string path_;
};

/// Cuts the rest of an input into pieces whose sizes come from a small deterministic generator
/// seeded by `seed`, so that one input byte chooses how a stream is split into reads.
class Splitter {
 public:
  explicit Splitter(std::uint8_t seed) : state_(seed * 2654435761u + 1) {}

  /// The size of the next piece: 1 to 64 bytes, with more short pieces than long ones.
  std::size_t next() {
    state_ = state_ * 1103515245u + 12345u;
    const std::uint32_t r = (state_ >> 16) & 0x7fff;
    return (r & 1) != 0 ? 1 + (r >> 1) % 4 : 1 + (r >> 1) % 64;
  }

 private:
  std::uint32_t state_;
};

/// The split-invariance check shared by the targets that read a stream: input byte 0 seeds how
/// the rest is cut into reads, and `read(bytes, splitter)` (splitter null: one read) says what
/// the reader made of them, or `unusable` when the bytes ended it early (errors may be found at
/// different points of a split stream, so such results are not compared). Fails with `what`
/// when a whole read and a split one disagree.
template <typename Read>
void check_split_invariant(const std::uint8_t* data, std::size_t size, Read read,
                           std::string_view unusable, const char* what) {
  if (size < 1) return;
  const std::string_view bytes = as_view(data + 1, size - 1);
  const std::string whole = read(bytes, nullptr);
  Splitter splitter(data[0]);
  const std::string split = read(bytes, &splitter);
  if (whole != unusable && split != unusable && whole != split) fail(what);
}

}  // namespace tokenbench::fuzz
