#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/tokenizer/added_vocabulary.h"
#include "tokenbench/tokenizer/bpe_model.h"
#include "tokenbench/tokenizer/decoder.h"
#include "tokenbench/tokenizer/normalizer.h"
#include "tokenbench/tokenizer/pre_tokenizer.h"
#include "tokenbench/tokenizer/token_table.h"
#include "tokenbench/tokenizer/tokenizer.h"

namespace tokenbench::tokenizer {

/// The components of a Hugging Face tokenizer, as hf_tokenizer_json.h builds them.
struct HfTokenizerParts {
  std::unique_ptr<BpeModel> model;
  /// Every token's string as tokenizer.json writes it (model vocabulary and added tokens).
  TokenTable token_strings;
  std::vector<AddedToken> added_tokens;
  std::unique_ptr<Normalizer> normalizer;       ///< may be null
  std::unique_ptr<PreTokenizer> pre_tokenizer;  ///< may be null
  std::unique_ptr<Decoder> decoder;             ///< may be null: tokens are joined with spaces
  /// The decoder is exactly ByteLevel: decode by concatenating token bytes.
  bool byte_level_decode = false;
  /// Ids the post-processor puts before and after a single sequence.
  std::vector<std::int32_t> prefix_ids;
  std::vector<std::int32_t> suffix_ids;
  std::optional<std::int32_t> bos_id;
  std::optional<std::int32_t> eos_id;
  std::string description;
};

/// A tokenizer.json tokenizer. The pipeline is Hugging Face's: added tokens are split out of the
/// raw text (those marked `normalized` out of the normalized text), each remaining stretch is
/// normalized, pre-tokenized into words, and each word goes through the BPE model; the
/// post-processor adds BOS/EOS when asked. Immutable; safe from several threads.
class HfTokenizer final : public Tokenizer {
 public:
  explicit HfTokenizer(HfTokenizerParts parts);

  void encode_into(std::string_view text, bool add_special_tokens,
                   std::vector<std::int32_t>& ids) const override;
  std::string decode(std::span<const std::int32_t> ids) const override;
  std::size_t vocab_size() const override;
  std::optional<std::string> id_to_token(std::int32_t id) const override;
  std::optional<std::int32_t> token_to_id(std::string_view token) const override;
  bool is_special(std::int32_t id) const override;
  std::vector<std::int32_t> special_ids() const override { return special_ids_; }
  std::optional<std::int32_t> bos_id() const override { return parts_.bos_id; }
  std::optional<std::int32_t> eos_id() const override { return parts_.eos_id; }
  std::string description() const override { return parts_.description; }

 private:
  void encode_stretch(std::string_view text, bool at_origin, std::vector<std::int32_t>& ids) const;
  void encode_words(std::string_view text, bool at_origin, std::vector<std::int32_t>& ids) const;

  HfTokenizerParts parts_;
  AddedTokenMatcher raw_matcher_;
  AddedTokenMatcher normalized_matcher_;
  std::vector<std::int32_t> special_ids_;
  std::vector<std::string> added_content_;  // by id, for decoding added tokens
};

}  // namespace tokenbench::tokenizer
