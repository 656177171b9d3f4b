// Encode throughput of tokenbench's tokenizers, one thread, on a fixed corpus: each corpus file
// is one encode() call; passes over the corpus repeat for at least --seconds, three times, and
// the median is reported in MB/s (10^6 bytes of UTF-8 input per second). Its companion,
// scripts/bench-tokenizers-ref.mjs, times the reference encoders the same way.
//
//   tokenbench_tokenizer_bench FIXTURES_DIR CORPUS_FILE...

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tokenbench/tokenizer/tokenizer.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Family {
  const char* name;
  const char* fixture;
  const char* format;
};

constexpr Family kFamilies[] = {
    {"llama3", "llama3/tokenizer.json", "tokenizer.json"},
    {"qwen3", "qwen3/tokenizer.json", "tokenizer.json"},
    {"gpt4o", "gpt4o/tokenizer.json", "tokenizer.json"},
    {"mistral", "mistral/tokenizer.json", "tokenizer.json"},
    {"llama2-sp", "llama2-sp/tokenizer.model", "sentencepiece"},
    {"cl100k", "tiktoken/cl100k_base.tiktoken", "tiktoken"},
    {"o200k", "tiktoken/o200k_base.tiktoken", "tiktoken"},
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s FIXTURES_DIR CORPUS_FILE...\n", argv[0]);
    return 1;
  }
  const std::string fixtures = argv[1];
  std::vector<std::string> docs;
  std::size_t bytes = 0;
  for (int i = 2; i < argc; ++i) {
    docs.push_back(read_file(argv[i]));
    bytes += docs.back().size();
  }
  std::printf("corpus: %zu documents, %zu bytes\n", docs.size(), bytes);
  std::printf("%-10s %-16s %10s %12s\n", "family", "implementation", "MB/s", "tokens");
  std::vector<std::int32_t> ids;
  for (const Family& family : kFamilies) {
    const auto tokenizer = tokenbench::tokenizer::load_tokenizer(fixtures + "/" + family.fixture);
    std::size_t tokens = 0;
    for (const std::string& doc : docs) tokens += tokenizer->count(doc);  // warm-up pass
    std::vector<double> rates;
    for (int repetition = 0; repetition < 3; ++repetition) {
      std::size_t passes = 0;
      const auto start = Clock::now();
      std::chrono::duration<double> elapsed{};
      do {
        for (const std::string& doc : docs) {
          ids.clear();
          tokenizer->encode_into(doc, false, ids);
        }
        ++passes;
        elapsed = Clock::now() - start;
      } while (elapsed.count() < 1.0);
      rates.push_back(static_cast<double>(bytes * passes) / elapsed.count() / 1e6);
    }
    std::sort(rates.begin(), rates.end());
    std::printf("%-10s %-16s %10.2f %12zu\n", family.name, "tokenbench", rates[1], tokens);
  }
  return 0;
}
