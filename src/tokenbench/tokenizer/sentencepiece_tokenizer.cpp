#include "tokenbench/tokenizer/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include <stdexcept>

#include "tokenbench/tokenizer/scratch.h"
#include "tokenbench/tokenizer/utf8.h"

namespace tokenbench::tokenizer {
namespace {

class SentencePieceTokenizer final : public Tokenizer {
 public:
  explicit SentencePieceTokenizer(const std::string& path) {
    const auto status = processor_.Load(path);
    if (!status.ok()) {
      throw std::runtime_error("tokenizer " + path + ": not a SentencePiece model (" +
                               status.ToString() + ")");
    }
    for (int id = 0; id < processor_.GetPieceSize(); ++id) {
      if (processor_.IsControl(id) || processor_.IsUnknown(id)) special_ids_.push_back(id);
    }
  }

  void encode_into(std::string_view text, bool add_special_tokens,
                   std::vector<std::int32_t>& ids) const override {
    thread_local std::string sanitized;
    thread_local std::vector<int> pieces;
    if (!is_valid_utf8(text)) {
      sanitized = sanitize_utf8(text);
      text = sanitized;
    }
    pieces.clear();
    const auto status = processor_.Encode(text, &pieces);
    if (!status.ok()) throw std::runtime_error("sentencepiece: " + status.ToString());
    if (add_special_tokens && processor_.bos_id() >= 0) ids.push_back(processor_.bos_id());
    ids.insert(ids.end(), pieces.begin(), pieces.end());
    release_if_large(sanitized);
    release_if_large(pieces);
  }

  std::string decode(std::span<const std::int32_t> ids) const override {
    std::vector<int> known;
    known.reserve(ids.size());
    for (const std::int32_t id : ids) {
      if (id >= 0 && id < processor_.GetPieceSize()) known.push_back(id);
    }
    std::string text;
    const auto status = processor_.Decode(known, &text);
    if (!status.ok()) throw std::runtime_error("sentencepiece: " + status.ToString());
    return is_valid_utf8(text) ? text : sanitize_utf8(text);
  }

  std::size_t vocab_size() const override {
    return static_cast<std::size_t>(processor_.GetPieceSize());
  }
  std::optional<std::string> id_to_token(std::int32_t id) const override {
    if (id < 0 || id >= processor_.GetPieceSize()) return std::nullopt;
    return processor_.IdToPiece(id);
  }
  std::optional<std::int32_t> token_to_id(std::string_view token) const override {
    const int id = processor_.PieceToId(token);
    // PieceToId answers unk_id for unknown pieces.
    if (id == processor_.unk_id() && processor_.IdToPiece(id) != token) return std::nullopt;
    return id;
  }
  bool is_special(std::int32_t id) const override {
    return id >= 0 && id < processor_.GetPieceSize() &&
           (processor_.IsControl(id) || processor_.IsUnknown(id));
  }
  std::vector<std::int32_t> special_ids() const override { return special_ids_; }
  std::optional<std::int32_t> bos_id() const override { return optional_id(processor_.bos_id()); }
  std::optional<std::int32_t> eos_id() const override { return optional_id(processor_.eos_id()); }
  std::string description() const override { return "sentencepiece"; }

 private:
  static std::optional<std::int32_t> optional_id(int id) {
    return id >= 0 ? std::optional<std::int32_t>(id) : std::nullopt;
  }
  sentencepiece::SentencePieceProcessor processor_;
  std::vector<std::int32_t> special_ids_;
};

}  // namespace

std::unique_ptr<Tokenizer> load_sentencepiece(const std::string& path) {
  return std::make_unique<SentencePieceTokenizer>(path);
}

}  // namespace tokenbench::tokenizer
