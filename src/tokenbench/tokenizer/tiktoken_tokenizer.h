#pragma once

#include <memory>
#include <string>

#include "tokenbench/tokenizer/tokenizer.h"

namespace tokenbench::tokenizer {

/// Loads a tiktoken rank file (`.tiktoken`: one `BASE64_TOKEN RANK` line per token, the rank
/// being the id). `encoding` chooses the pre-split pattern and special tokens: "cl100k_base"
/// or "o200k_base" (the patterns of tiktoken's own definitions); empty means "take it from the
/// file name". Encoding follows tiktoken: a piece that is itself a token is emitted whole,
/// otherwise adjacent parts are merged lowest rank first. Throws std::runtime_error naming the
/// file and the problem.
std::unique_ptr<Tokenizer> load_tiktoken(const std::string& path, const std::string& encoding);

}  // namespace tokenbench::tokenizer
