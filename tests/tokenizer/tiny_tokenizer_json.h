#pragma once

// Small tokenizer.json documents shared by the tokenizer tests.

namespace tokenbench::tokenizer::testing {

// Byte-level: vocabulary in GPT-2's alphabet ("Ġ" is a space), Split + ByteLevel pre-tokenizers,
// ignore_merges, an lstrip special token and a normalized added token. "ab ab" is [3, 4].
inline constexpr const char* kByteLevel = R"({
  "added_tokens": [
    {"id": 7, "content": "<|x|>", "special": true, "lstrip": true, "normalized": false},
    {"id": 8, "content": "zz", "special": false, "normalized": true}],
  "normalizer": {"type": "NFC"},
  "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
    {"type": "Split", "pattern": {"Regex": " ?\\p{L}+|\\s+"}, "behavior": "Isolated", "invert": false},
    {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]},
  "post_processor": {"type": "ByteLevel"},
  "decoder": {"type": "ByteLevel"},
  "model": {"type": "BPE", "ignore_merges": true,
    "vocab": {"a": 0, "b": 1, "Ġ": 2, "ab": 3, "Ġab": 4, "Ċ": 5, "Ġa": 6},
    "merges": ["a b", "Ġ ab"]}
})";

}  // namespace tokenbench::tokenizer::testing
