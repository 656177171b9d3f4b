// A tiktoken rank file as tokenizer::load_tiktoken loads it (it takes a path: the input is
// written to a scratch file first), then the loaded tokenizer encodes and decodes a short text.
// Loading may fail only with std::runtime_error, as documented.

#include <stdexcept>

#include "fuzz_support.h"
#include "tokenbench/tokenizer/tiktoken_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  static tokenbench::fuzz::ScratchFile file("ranks.tiktoken");
  // The first byte chooses the encoding (pattern and special tokens).
  const char* encoding = (data[0] & 1) != 0 ? "o200k_base" : "cl100k_base";
  const std::string& path = file.write(tokenbench::fuzz::as_view(data + 1, size - 1));
  std::unique_ptr<tokenbench::tokenizer::Tokenizer> tok;
  try {
    tok = tokenbench::tokenizer::load_tiktoken(path, encoding);
  } catch (const std::runtime_error&) {
    return 0;
  }
  static constexpr std::string_view kText = "ab ab\n  Hello, world! 123 <|endoftext|> \xc3\xa9\xff";
  const auto ids = tok->encode(kText);
  for (const std::int32_t id : ids) {
    if (id < 0 || static_cast<std::size_t>(id) >= tok->vocab_size()) {
      tokenbench::fuzz::fail("encode gave an id outside the vocabulary");
    }
  }
  (void)tok->decode(ids);
  return 0;
}
