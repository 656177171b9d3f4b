#include "tokenbench/records/results_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "tokenbench/core/json_parse.h"
#include "tokenbench/core/text.h"

namespace tokenbench::records {

std::FILE* open_for_writing(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP) {
      throw std::runtime_error("cannot write " + path +
                               ": it is a symbolic link, which tokenbench does not write through; "
                               "remove it or choose another --output-dir");
    }
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(err));
  }
  std::FILE* file = ::fdopen(fd, "w");
  if (file == nullptr) {
    const int err = errno;
    ::close(fd);
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(err));
  }
  return file;
}

bool holds_results(const std::string& dir) {
  return std::filesystem::exists(dir + "/" + kRequestsFile) ||
         std::filesystem::exists(dir + "/" + kRequestsZstFile) ||
         std::filesystem::exists(dir + "/" + kSummaryFile);
}

std::string find_requests_file(const std::string& dir) {
  for (const char* name : {kRequestsFile, kRequestsZstFile}) {
    const std::string path = dir + "/" + name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) return path;
  }
  return "";
}

void write_text_file(const std::string& path, const std::string& text) {
  // Write beside the target, then rename: a reader never sees a half-written file, a failed
  // write (a full disk) leaves no .tmp behind, and a link at either name is never followed.
  const std::string tmp = path + ".tmp";
  const auto fail = [&](int err) {
    std::remove(tmp.c_str());
    return std::runtime_error("cannot write " + path + ": " + std::strerror(err));
  };
  std::remove(tmp.c_str());
  std::FILE* out = open_for_writing(tmp);
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  const int write_err = errno;
  if (std::fclose(out) != 0 || !written) throw fail(written ? errno : write_err);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw fail(errno);
}

void make_directories(const std::string& dir, std::vector<std::string>& created) {
  std::vector<std::filesystem::path> missing;
  std::error_code ec;
  for (std::filesystem::path p(dir); !p.empty() && !std::filesystem::exists(p, ec);
       p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (!std::filesystem::create_directory(*it, ec) && ec) {
      throw std::runtime_error("cannot create directory " + it->string() + ": " + ec.message());
    }
    created.push_back(it->string());
  }
  if (!std::filesystem::is_directory(dir, ec)) {
    throw std::runtime_error("cannot write in " + dir + ": it is not a directory");
  }
}

void write_new_file(const std::string& path, const std::string& text,
                    std::vector<std::string>& created) {
  std::error_code ec;
  const bool fresh = !std::filesystem::exists(std::filesystem::symlink_status(path, ec));
  write_text_file(path, text);
  if (fresh) created.push_back(path);
}

void remove_created(const std::vector<std::string>& created) {
  for (auto it = created.rbegin(); it != created.rend(); ++it) {
    std::error_code ec;
    if (std::filesystem::is_directory(*it, ec) && !std::filesystem::is_empty(*it, ec)) continue;
    std::filesystem::remove(*it, ec);
  }
}

void write_json_file(const std::string& path, const nlohmann::json& document) {
  write_text_file(path,
                  document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

nlohmann::json read_json_file(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) return nullptr;
  try {
    return core::parse_json(read_text_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool write_optional_file(const std::string& path, const std::function<std::string()>& text) {
  return write_optional([&] { write_text_file(path, text()); });
}

bool write_optional(const std::function<void()>& write) {
  try {
    write();
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenbench: warning: %s; the run goes on without it\n",
                 core::one_line(e.what()).c_str());
    return false;
  }
}

void make_reserve(const std::string& dir) {
  const std::string path = dir + "/" + kReserveFile;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const bool made = ::posix_fallocate(fd, 0, kReserveBytes) == 0;
  ::close(fd);
  if (!made) std::remove(path.c_str());
}

void release_reserve(const std::string& dir) { std::remove((dir + "/" + kReserveFile).c_str()); }

}  // namespace tokenbench::records
