#pragma once

#include <memory>
#include <string>

#include "tokenbench/tokenizer/tokenizer.h"

namespace tokenbench::tokenizer {

/// Loads a Hugging Face tokenizer.json with a BPE model: byte-level (GPT-2, Llama-3, Qwen2/3,
/// o200k exports) or SentencePiece-style with byte_fallback (Llama-2, Mistral exports).
/// Supported components:
///  - normalizer: NFC, NFD, NFKC, NFKD, Prepend, Replace (String or Regex), Lowercase, Strip,
///    ByteLevel, Sequence;
///  - pre_tokenizer: ByteLevel, Split (String or Regex; every behaviour; invert), Digits,
///    Metaspace, Whitespace, WhitespaceSplit, Sequence;
///  - model: BPE (merges as "a b" strings or [a, b] pairs; ignore_merges, byte_fallback,
///    fuse_unk, unk_token, continuing_subword_prefix, end_of_word_suffix);
///  - post_processor: TemplateProcessing (single sequence), ByteLevel, RobertaProcessing,
///    BertProcessing, Sequence;
///  - decoder: ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip, Sequence.
/// `config_path` names tokenizer_config.json (may not exist) for bos_token/eos_token. Throws
/// std::runtime_error naming `path` and the first unsupported or malformed part.
std::unique_ptr<Tokenizer> load_hf_tokenizer_json(const std::string& path,
                                                  const std::string& config_path);

}  // namespace tokenbench::tokenizer
