// A Hugging Face tokenizer.json as tokenizer::load_hf_tokenizer_json loads it (it takes a path:
// the input is written to a scratch file first), then the loaded tokenizer encodes and decodes a
// short text. Loading may fail only with std::runtime_error, as documented.

#include "tokenbench/tokenizer/hf_tokenizer_json.h"

#include <stdexcept>

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static tokenbench::fuzz::ScratchFile file("tokenizer.json");
  const std::string& path = file.write(tokenbench::fuzz::as_view(data, size));
  std::unique_ptr<tokenbench::tokenizer::Tokenizer> tok;
  try {
    tok = tokenbench::tokenizer::load_hf_tokenizer_json(path, path + ".absent-config.json");
  } catch (const std::runtime_error&) {
    return 0;
  }
  // Text that exercises the normalizer, pre-tokenizers, byte fallback and added tokens.
  static constexpr std::string_view kText = "ab ab\n  Hello, world! 123 <|x|> zz \xc3\xa9\xff";
  for (const bool special : {false, true}) {
    const auto ids = tok->encode(kText, special);
    for (const std::int32_t id : ids) {
      if (id < 0 || static_cast<std::size_t>(id) >= tok->vocab_size()) {
        tokenbench::fuzz::fail("encode gave an id outside the vocabulary");
      }
      (void)tok->id_to_token(id);
    }
    (void)tok->decode(ids);
    if (tok->count(kText) != tok->encode(kText, false).size()) {
      tokenbench::fuzz::fail("count() disagrees with encode()");
    }
  }
  return 0;
}
