#pragma once

#include <memory>
#include <string>

#include "tokenbench/tokenizer/tokenizer.h"

namespace tokenbench::tokenizer {

/// Loads a SentencePiece model (`tokenizer.model`) through libsentencepiece. encode() uses the
/// model's own normalization and algorithm (BPE or unigram); add_special_tokens prepends BOS
/// when the model defines one (as Llama-2's Hugging Face tokenizer does). Control pieces and
/// <unk> are special. Control-token strings in the text (e.g. "<s>") are not recognised: that
/// is SentencePiece's behaviour. Thread-safety: libsentencepiece's Encode/Decode are const and
/// reentrant. Throws std::runtime_error naming the file and libsentencepiece's complaint.
std::unique_ptr<Tokenizer> load_sentencepiece(const std::string& path);

}  // namespace tokenbench::tokenizer
