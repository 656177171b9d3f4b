#include <filesystem>
#include <fstream>
#include <stdexcept>

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
  std::string line;
  std::getline(in, line);
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

}  // namespace

std::unique_ptr<Tokenizer> load_tokenizer(const std::string& path, const LoadOptions& options) {
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec)) {
    for (const char* name : {"tokenizer.json", "tokenizer.model"}) {
      if (fs::is_regular_file(p / name, ec)) return load_file(p / name, options);
    }
    std::vector<fs::path> ranks;
    for (const auto& entry : fs::directory_iterator(p, ec)) {
      if (entry.path().extension() == ".tiktoken") ranks.push_back(entry.path());
    }
    if (ranks.size() == 1) return load_file(ranks.front(), options);
    throw std::runtime_error("tokenizer " + path +
                             (ranks.empty()
                                  ? ": no tokenizer.json, tokenizer.model or *.tiktoken in it"
                                  : ": several *.tiktoken files; name one"));
  }
  if (!fs::is_regular_file(p, ec)) {
    throw std::runtime_error("tokenizer " + path + ": no such file or directory");
  }
  return load_file(p, options);
}

}  // namespace tokenbench::tokenizer
