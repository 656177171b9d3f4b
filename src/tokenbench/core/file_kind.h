#pragma once

#include <sys/stat.h>

#include <string>

namespace tokenbench::core {

/// What a path names, as stat(2) (following links) sees it.
enum class FileKind {
  kMissing,
  kRegular,
  kDirectory,
  kPipe,
  kCharDevice,
  kBlockDevice,
  kSocket,
  kOther
};

/// The kind of `path`; kMissing when stat fails (no such file, no permission on the way).
inline FileKind file_kind(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return FileKind::kMissing;
  if (S_ISREG(st.st_mode)) return FileKind::kRegular;
  if (S_ISDIR(st.st_mode)) return FileKind::kDirectory;
  if (S_ISFIFO(st.st_mode)) return FileKind::kPipe;
  if (S_ISCHR(st.st_mode)) return FileKind::kCharDevice;
  if (S_ISBLK(st.st_mode)) return FileKind::kBlockDevice;
  if (S_ISSOCK(st.st_mode)) return FileKind::kSocket;
  return FileKind::kOther;
}

/// "a named pipe", "a character device (such as /dev/null)", ...: the kind in words, for an
/// error that says what a path is and why it cannot be used.
inline std::string to_words(FileKind kind) {
  switch (kind) {
    case FileKind::kMissing:
      return "missing";
    case FileKind::kRegular:
      return "a file";
    case FileKind::kDirectory:
      return "a directory";
    case FileKind::kPipe:
      return "a pipe";
    case FileKind::kCharDevice:
      return "a character device";
    case FileKind::kBlockDevice:
      return "a block device";
    case FileKind::kSocket:
      return "a socket";
    case FileKind::kOther:
      return "not a file";
  }
  return "not a file";
}

}  // namespace tokenbench::core
