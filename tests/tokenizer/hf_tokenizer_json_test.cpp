#include "tokenbench/tokenizer/hf_tokenizer_json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tiny_tokenizer_json.h"
#include "tokenbench/tokenizer/tokenizer.h"

namespace tokenbench::tokenizer {
namespace {

namespace fs = std::filesystem;
using Ids = std::vector<std::int32_t>;

class HfTokenizerJson : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tokenbench-hf-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& content) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }
  std::string error_of(const std::string& path) {
    try {
      load_tokenizer(path);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no error";
  }
  fs::path dir_;
};

// Like Mistral's export: Prepend + Replace normalizer, byte fallback, BOS template, and the
// Replace/ByteFallback/Fuse/Strip decoder; merges as [a, b] pairs.
constexpr const char* kSentencePieceStyle = R"({
  "added_tokens": [
    {"id": 0, "content": "<unk>", "special": true, "normalized": false},
    {"id": 1, "content": "<s>", "special": true, "normalized": false},
    {"id": 2, "content": "</s>", "special": true, "normalized": false}],
  "normalizer": {"type": "Sequence", "normalizers": [
    {"type": "Prepend", "prepend": "▁"},
    {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
  "pre_tokenizer": null,
  "post_processor": {"type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
    "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
  "decoder": {"type": "Sequence", "decoders": [
    {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
    {"type": "ByteFallback"}, {"type": "Fuse"},
    {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
  "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "byte_fallback": true,
    "vocab": {"<unk>": 0, "<s>": 1, "</s>": 2, "<0x0A>": 3, "<0xC3>": 4, "<0xA9>": 5,
              "▁": 6, "h": 7, "i": 8, "▁h": 9, "▁hi": 10},
    "merges": [["▁", "h"], ["▁h", "i"]]}
})";

TEST_F(HfTokenizerJson, SentencePieceStyleBpe) {
  const auto tok = load_tokenizer(write("tokenizer.json", kSentencePieceStyle));
  EXPECT_EQ(tok->encode("hi"), (Ids{10}));
  EXPECT_EQ(tok->encode("hi", true), (Ids{1, 10}));
  EXPECT_EQ(tok->encode("hi hi\n"), (Ids{10, 10, 3}));
  EXPECT_EQ(tok->encode("h\xC3\xA9"), (Ids{9, 4, 5}));     // é by byte fallback
  EXPECT_EQ(tok->encode("hi\xE4\xBD\xA0"), (Ids{10, 0}));  // no byte tokens: <unk>
  EXPECT_EQ(tok->encode("hi</s>hi"), (Ids{10, 2, 10}));    // text after a special: "▁" again
  EXPECT_EQ(tok->decode(Ids{10, 10, 3}), "hi hi\n");
  EXPECT_EQ(tok->decode(Ids{9, 4, 5}), "h\xC3\xA9");
  EXPECT_EQ(tok->decode(Ids{9, 4}), "h\xEF\xBF\xBD");  // an incomplete byte sequence
  EXPECT_EQ(tok->bos_id(), 1);  // no tokenizer_config.json: from the template
  EXPECT_EQ(tok->eos_id(), 2);
  EXPECT_EQ(tok->vocab_size(), 11u);
  EXPECT_EQ(tok->special_ids(), (Ids{0, 1, 2}));
  EXPECT_EQ(tok->id_to_token(10), "\u2581hi");
  EXPECT_EQ(tok->description(), "tokenizer.json (BPE, byte fallback)");
}

// Byte-level: vocabulary in GPT-2's alphabet ("Ġ" is a space), Split + ByteLevel pre-tokenizers,
// ignore_merges, an lstrip special token and a normalized added token.
constexpr const char* kByteLevel = tokenizer::testing::kByteLevel;

TEST_F(HfTokenizerJson, ByteLevelBpe) {
  write("tokenizer.json", kByteLevel);
  write("tokenizer_config.json", R"({"bos_token": null, "eos_token": {"content": "<|x|>"},
                                     "model_max_length": 1000000000000000019884624838656})");
  const auto tok = load_tokenizer(dir_.string());
  EXPECT_EQ(tok->encode("ab ab"), (Ids{3, 4}));
  EXPECT_EQ(tok->encode("ab <|x|> ab"), (Ids{3, 7, 4}));  // lstrip takes the space
  EXPECT_EQ(tok->encode("abzzab"), (Ids{3, 8, 3}));
  EXPECT_EQ(tok->encode(" a\n"), (Ids{6, 5}));  // " a" is in the vocabulary: kept whole
  EXPECT_EQ(tok->encode("ab", true), (Ids{3}));
  EXPECT_EQ(tok->decode(Ids{3, 7, 4}), "ab<|x|> ab");
  EXPECT_EQ(tok->bos_id(), std::nullopt);
  EXPECT_EQ(tok->eos_id(), 7);
  EXPECT_EQ(tok->token_to_id("\xC4\xA0"
                             "ab"),
            4);
  EXPECT_TRUE(tok->is_special(7));
  EXPECT_FALSE(tok->is_special(8));
}

TEST_F(HfTokenizerJson, ErrorsNameTheFileAndTheProblem) {
  const std::string wordpiece =
      write("wordpiece.json", R"({"model": {"type": "WordPiece", "vocab": {}}})");
  EXPECT_EQ(error_of(wordpiece),
            "tokenizer " + wordpiece + ": unsupported model type \"WordPiece\"");
  std::string unknown_pre = kByteLevel;
  unknown_pre.replace(unknown_pre.find("\"Split\""), 7, "\"Punctuation\"");
  const std::string pre = write("pre.json", unknown_pre);
  EXPECT_EQ(error_of(pre), "tokenizer " + pre + ": unsupported pre_tokenizer \"Punctuation\"");
  std::string bad_merge = kByteLevel;
  bad_merge.replace(bad_merge.find("\"a b\""), 5, "\"a q\"");
  const std::string merge = write("merge.json", bad_merge);
  EXPECT_EQ(error_of(merge), "tokenizer " + merge + ": merge 0 uses q, not in vocab");
  const std::string huge =
      write("huge.json", R"({"model": {"type": "BPE", "vocab": {"a": 2147483000}, "merges": []}})");
  EXPECT_TRUE(error_of(huge).find("has no valid id") != std::string::npos) << error_of(huge);
  const std::string broken = write("broken.json", "{\"model\": ");
  EXPECT_TRUE(error_of(broken).starts_with("tokenizer " + broken + ": not readable JSON"))
      << error_of(broken);
  // Issue 25, item 6: one limit on nesting for every JSON document read (simdjson's own was 1024).
  const std::string deep =
      write("deep.json", R"({"model": {"type": "BPE", "vocab": {}, "x": )" + std::string(300, '[') +
                             std::string(300, ']') + "}}");
  EXPECT_EQ(
      error_of(deep),
      "tokenizer " + deep + ": nested deeper than 256 levels, the limit of JSON documents read");
}

}  // namespace
}  // namespace tokenbench::tokenizer
