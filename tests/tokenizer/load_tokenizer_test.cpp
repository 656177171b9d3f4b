#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tokenbench/tokenizer/tokenizer.h"

namespace tokenbench::tokenizer {
namespace {

namespace fs = std::filesystem;
using Ids = std::vector<std::int32_t>;

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                       (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  if (i < bytes.size()) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

class LoadTokenizer : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tokenbench-load-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& content) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }
  // Every byte (rank = byte value), then " h"=256, "he"=257, "ll"=258, "hell"=259, "hello"=260.
  std::string rank_file() {
    std::string text;
    for (int b = 0; b < 256; ++b) {
      text += base64(std::string(1, static_cast<char>(b))) + " " + std::to_string(b) + "\n";
    }
    int rank = 256;
    for (const char* t : {" h", "he", "ll", "hell", "hello"}) {
      text += base64(t) + " " + std::to_string(rank++) + "\n";
    }
    return text;
  }
  std::string error_of(const std::string& path, const LoadOptions& options = {}) {
    try {
      load_tokenizer(path, options);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no error";
  }
  fs::path dir_;
};

TEST_F(LoadTokenizer, TiktokenRankFile) {
  const std::string path = write("tiny_cl100k_base.tiktoken", rank_file());
  const auto tok = load_tokenizer(path);
  EXPECT_EQ(tok->description(), "tiktoken (cl100k_base)");
  // "hello": he(257), ll(258), hell(259) from he+ll, then hell+o is hello(260); whole anyway.
  EXPECT_EQ(tok->encode("hello"), (Ids{260}));
  // " hell": " h"(256), ll(258)... " "+"h" merges first (256 < 257): " h", "e", "ll".
  EXPECT_EQ(tok->encode(" hell"), (Ids{256, 'e', 258}));
  EXPECT_EQ(tok->encode("a<|endoftext|>b"), (Ids{'a', 100257, 'b'}));
  EXPECT_EQ(tok->decode(Ids{256, 'e', 258, 100257}), " hell<|endoftext|>");
  EXPECT_EQ(tok->vocab_size(), 100277u);
  EXPECT_EQ(tok->eos_id(), 100257);
  EXPECT_EQ(tok->id_to_token(1000), std::nullopt);
  EXPECT_EQ(tok->id_to_token(258), "ll");
  EXPECT_EQ(tok->token_to_id("hell"), 259);
}

TEST_F(LoadTokenizer, HugeInputThenSmallEncodesTheSame) {
  const auto tok = load_tokenizer(write("tiny_cl100k_base.tiktoken", rank_file()));
  // Over 1 MiB, not valid UTF-8 (the sanitized copy), with a special token: every per-thread
  // buffer grows past the limit and is freed afterwards.
  std::string huge;
  for (int i = 0; i < 300000; ++i) huge += "hello ";
  huge += "\xff<|endoftext|>";
  const Ids ids = tok->encode(huge);
  EXPECT_GT(ids.size(), 300000u);
  EXPECT_EQ(ids.back(), 100257);
  EXPECT_EQ(tok->count(huge), ids.size());
  EXPECT_EQ(tok->encode("hello"), (Ids{260}));
  EXPECT_EQ(tok->count(" hell"), 3u);
  EXPECT_EQ(tok->encode(huge), ids);
}

TEST_F(LoadTokenizer, TiktokenEncodingByOptionOrError) {
  const std::string path = write("ranks.tiktoken", rank_file());
  EXPECT_EQ(error_of(path), "tokenizer " + path +
                                ": cannot tell the encoding from the file name; name it "
                                "(cl100k_base or o200k_base) with --tiktoken-encoding");
  const auto tok = load_tokenizer(path, {.tiktoken_encoding = "o200k_base"});
  EXPECT_EQ(tok->description(), "tiktoken (o200k_base)");
  EXPECT_EQ(tok->eos_id(), 199999);
  EXPECT_EQ(error_of(path, {.tiktoken_encoding = "p50k"}),
            "tokenizer " + path +
                ": unknown tiktoken encoding \"p50k\" (known: cl100k_base, "
                "o200k_base)");
}

TEST_F(LoadTokenizer, TiktokenMalformedFiles) {
  const std::string bad = write("bad_cl100k_base.tiktoken", rank_file() + "!!! 12\n");
  EXPECT_EQ(error_of(bad), "tokenizer " + bad + ": line 262 is not \"BASE64_TOKEN RANK\"");
  const std::string partial = write("partial_cl100k_base.tiktoken", base64("a") + " 0\n");
  EXPECT_EQ(error_of(partial),
            "tokenizer " + partial + ": byte 0 has no token: not a byte-level rank file");
}

TEST_F(LoadTokenizer, FoldersAndFormats) {
  EXPECT_EQ(
      error_of(dir_.string()),
      "tokenizer " + dir_.string() + ": no tokenizer.json, tokenizer.model or *.tiktoken in it");
  const std::string missing = (dir_ / "nope").string();
  EXPECT_EQ(error_of(missing), "tokenizer " + missing + ": no such file or directory");
  const std::string junk = write("tokenizer.model", "not a protobuf");
  EXPECT_TRUE(
      error_of(dir_.string()).starts_with("tokenizer " + junk + ": not a SentencePiece model"))
      << error_of(dir_.string());
  fs::remove(junk);
  // A rank file under another name is recognised by its content (and the option names it).
  write("vocab.txt", rank_file());
  const auto tok =
      load_tokenizer((dir_ / "vocab.txt").string(), {.tiktoken_encoding = "cl100k_base"});
  EXPECT_EQ(tok->encode("hello"), (Ids{260}));
  fs::remove(dir_ / "vocab.txt");
  write("o200k_base.tiktoken", rank_file());
  EXPECT_EQ(load_tokenizer(dir_.string())->description(), "tiktoken (o200k_base)");
}

}  // namespace
}  // namespace tokenbench::tokenizer
