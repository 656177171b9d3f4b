#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tokenbench/core/file_kind.h"
#include "tokenbench/tokenizer/hf_tokenizer_json.h"
#include "tokenbench/tokenizer/sentencepiece_tokenizer.h"
#include "tokenbench/tokenizer/tiktoken_tokenizer.h"
#include "tokenbench/tokenizer/tokenizer.h"

namespace tokenbench::tokenizer {
namespace fs = std::filesystem;

namespace {

enum class Format { kJson, kSentencePiece, kTiktoken };

// Guesses a file's format from its first bytes: '{' is JSON; "BASE64 NUMBER" is tiktoken.
Format sniff(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("tokenizer " + path + ": cannot open");
  // The first line, or its first 4 KiB (a tiktoken line is far shorter; JSON shows at once).
  std::string line(4096, '\0');
  in.read(line.data(), static_cast<std::streamsize>(line.size()));
  line.resize(static_cast<std::size_t>(in.gcount()));
  line.resize(std::min(line.size(), line.find('\n')));
  const std::size_t first = line.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && line[first] == '{') return Format::kJson;
  const std::size_t space = line.find(' ');
  if (space != std::string::npos && space > 0 &&
      line.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") ==
          space &&
      line.find_first_not_of("0123456789\r", space + 1) == std::string::npos) {
    return Format::kTiktoken;
  }
  return Format::kSentencePiece;
}

std::unique_ptr<Tokenizer> load_file(const fs::path& file, const LoadOptions& options) {
  const std::string path = file.string();
  const std::string ext = file.extension().string();
  Format format;
  if (ext == ".json") {
    format = Format::kJson;
  } else if (ext == ".model") {
    format = Format::kSentencePiece;
  } else if (ext == ".tiktoken") {
    format = Format::kTiktoken;
  } else {
    format = sniff(path);
  }
  switch (format) {
    case Format::kJson:
      return load_hf_tokenizer_json(path, (file.parent_path() / "tokenizer_config.json").string());
    case Format::kSentencePiece:
      return load_sentencepiece(path);
    case Format::kTiktoken:
      return load_tiktoken(path, options.tiktoken_encoding);
  }
  throw std::logic_error("unreachable");
}

// A model folder: its tokenizer.json, else tokenizer.model, else its only *.tiktoken file.
// nullptr when it has none of them; throws when it has several *.tiktoken files.
std::unique_ptr<Tokenizer> load_folder(const fs::path& dir, const std::string& name,
                                       const LoadOptions& options) {
  std::error_code ec;
  // is_regular_file follows symlinks: a hub snapshot's files point into its blobs/. The path
  // stays the link's, so that tokenizer_config.json is looked for beside it, not in blobs/.
  for (const char* file : {"tokenizer.json", "tokenizer.model"}) {
    if (fs::is_regular_file(dir / file, ec)) return load_file(dir / file, options);
  }
  std::vector<fs::path> ranks;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".tiktoken" && fs::is_regular_file(entry.path(), ec)) {
      ranks.push_back(entry.path());
    }
  }
  if (ranks.size() == 1) return load_file(ranks.front(), options);
  if (ranks.size() > 1) {
    throw std::runtime_error("tokenizer " + name + ": several *.tiktoken files; name one");
  }
  return nullptr;
}

// "ORG/NAME" as the Hugging Face hub names a model: one '/', both sides non-empty, and nothing
// that reads as a path ('/' or '.' first).
bool looks_like_hub_id(std::string_view s) {
  const std::size_t slash = s.find('/');
  return slash != std::string_view::npos && slash > 0 && slash + 1 < s.size() &&
         s.find('/', slash + 1) == std::string_view::npos && s.front() != '.';
}

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  std::string v = value;
  // huggingface_hub expands a leading ~ in these variables.
  if (const char* home = std::getenv("HOME");
      home != nullptr && (v == "~" || v.starts_with("~/"))) {
    v = home + v.substr(1);
  }
  return v;
}

// The hub cache folder, as huggingface_hub chooses it; nullopt when no variable names one.
std::optional<fs::path> hub_cache_root() {
  if (auto v = env("HF_HUB_CACHE")) return fs::path(*v);
  if (auto v = env("HF_HOME")) return fs::path(*v) / "hub";
  if (auto v = env("XDG_CACHE_HOME")) return fs::path(*v) / "huggingface" / "hub";
  if (auto v = env("HOME")) return fs::path(*v) / ".cache" / "huggingface" / "hub";
  return std::nullopt;
}

// The snapshot of a cached model: the revision that refs/main names, else the only (or the most
// recently modified) folder under snapshots/.
std::optional<fs::path> find_snapshot(const fs::path& model_dir) {
  std::error_code ec;
  const fs::path snapshots = model_dir / "snapshots";
  if (std::ifstream ref(model_dir / "refs" / "main"); ref) {
    std::string hash;
    ref >> hash;
    // A commit hash: no '/' and no leading '.', so that it cannot lead out of snapshots/.
    if (!hash.empty() && hash.front() != '.' && hash.find('/') == std::string::npos &&
        fs::is_directory(snapshots / hash, ec)) {
      return snapshots / hash;
    }
  }
  std::optional<fs::path> newest;
  fs::file_time_type newest_time;
  for (const auto& entry : fs::directory_iterator(snapshots, ec)) {
    if (!entry.is_directory(ec)) continue;
    const auto t = fs::last_write_time(entry.path(), ec);
    if (ec) continue;
    if (!newest || t > newest_time) {
      newest = entry.path();
      newest_time = t;
    }
  }
  return newest;
}

// `id` ("ORG/NAME") from the local hub cache, without network; throws a one-line error naming
// where it looked and how to download it.
std::unique_ptr<Tokenizer> load_from_hub_cache(const std::string& id, const LoadOptions& options) {
  const std::string prefix = "tokenizer '" + id + "': ";
  const std::string how = "download it with `huggingface-cli download " + id +
                          " tokenizer.json` (or set HF_HOME / HF_HUB_CACHE), or pass a local path";
  const auto root = hub_cache_root();
  if (!root) {
    throw std::runtime_error(prefix +
                             "not a file or folder, and no Hugging Face cache to look in "
                             "(HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME and HOME are unset); " +
                             how);
  }
  const std::size_t slash = id.find('/');
  const fs::path model_dir =
      *root / ("models--" + id.substr(0, slash) + "--" + id.substr(slash + 1));
  const auto snapshot = find_snapshot(model_dir);
  if (!snapshot) {
    std::error_code ec;
    const std::string where = fs::is_directory(model_dir, ec)
                                  ? model_dir.string() + ", which has no snapshot"
                                  : model_dir.string();
    throw std::runtime_error(prefix +
                             "not a file or folder, and not in the Hugging Face cache (looked in " +
                             where + "); " + how);
  }
  auto tokenizer = load_folder(*snapshot, snapshot->string(), options);
  if (!tokenizer) {
    throw std::runtime_error(prefix + "the Hugging Face cache snapshot " + snapshot->string() +
                             " has no tokenizer.json, tokenizer.model or *.tiktoken; " + how);
  }
  return tokenizer;
}

}  // namespace

std::unique_ptr<Tokenizer> load_tokenizer(const std::string& path, const LoadOptions& options) {
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec)) {
    if (auto tokenizer = load_folder(p, path, options)) return tokenizer;
    throw std::runtime_error("tokenizer " + path +
                             ": no tokenizer.json, tokenizer.model or *.tiktoken in it");
  }
  const core::FileKind kind = core::file_kind(path);
  if (kind == core::FileKind::kRegular) {
    if (fs::file_size(p, ec) == 0 && !ec) {
      throw std::runtime_error("tokenizer " + path +
                               ": the file is empty; give tokenizer.json, tokenizer.model or a "
                               "*.tiktoken file");
    }
    return load_file(p, options);
  }
  if (kind != core::FileKind::kMissing) {
    throw std::runtime_error("tokenizer " + path + " is " + core::to_words(kind) +
                             ", not a file: give tokenizer.json, tokenizer.model, a *.tiktoken "
                             "file or a model folder");
  }
  // A local path always wins; only a name that is none looks in the hub cache.
  if (looks_like_hub_id(path)) return load_from_hub_cache(path, options);
  throw std::runtime_error("tokenizer " + path + ": no such file or directory");
}

}  // namespace tokenbench::tokenizer
