#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenbench/tokenizer/pre_tokenizer.h"

namespace tokenbench::tokenizer {

/// One step of a tokenizer.json `decoder`: rewrites the list of token strings (HF's
/// decode_chain). The final text is the concatenation of what the last step leaves. Immutable;
/// safe from several threads.
class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void decode_chain(std::vector<std::string>& tokens) const = 0;
};

/// `ByteLevel`: maps GPT-2's byte alphabet back to bytes and joins them (invalid UTF-8 becomes
/// U+FFFD).
std::unique_ptr<Decoder> make_byte_level_decoder();
/// `Metaspace`: the replacement character becomes a space, except in the first token when the
/// pre-tokenizer prepends one.
std::unique_ptr<Decoder> make_metaspace_decoder(std::string replacement, PrependScheme scheme);
/// `Replace` with a String pattern.
std::unique_ptr<Decoder> make_replace_decoder(std::string literal, std::string content);
/// `ByteFallback`: runs of `<0xXX>` tokens become their bytes (U+FFFD per byte when invalid).
std::unique_ptr<Decoder> make_byte_fallback_decoder();
/// `Fuse`: joins all tokens into one.
std::unique_ptr<Decoder> make_fuse_decoder();
/// `Strip`: removes up to `start` leading and `stop` trailing `content` characters of each token.
std::unique_ptr<Decoder> make_strip_decoder(std::string content, std::size_t start,
                                            std::size_t stop);
/// `Sequence`: applies `steps` in order.
std::unique_ptr<Decoder> make_sequence_decoder(std::vector<std::unique_ptr<Decoder>> steps);

}  // namespace tokenbench::tokenizer
