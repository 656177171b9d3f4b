#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tokenbench::tokenizer {

/// A text tokenizer: Hugging Face tokenizer.json (BPE), SentencePiece .model or tiktoken ranks.
///
/// Input text is UTF-8. Ill-formed UTF-8 is first replaced with U+FFFD, one per maximal
/// ill-formed subsequence (as JavaScript's TextDecoder, Python's errors="replace" and Rust's
/// from_utf8_lossy do), so the ids are those a Python or JavaScript caller gets for the decoded
/// string. Special-token strings in the text (e.g. "<|endoftext|>") are recognised and become
/// their ids, as Hugging Face tokenizers do by default (tiktoken: allowed_special="all").
///
/// Thread-safety: a loaded tokenizer is immutable apart from internal caches that are safe to
/// share; every const member may be called from several threads at once. Ownership: the caller
/// owns the object returned by load_tokenizer().
class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  /// Token ids of `text`. With `add_special_tokens`, the tokens that the tokenizer's own
  /// configuration adds around a sequence (tokenizer.json's post-processor, e.g. Llama's BOS;
  /// SentencePiece: BOS when the model has one; tiktoken: none) are added.
  std::vector<std::int32_t> encode(std::string_view text, bool add_special_tokens = false) const {
    std::vector<std::int32_t> ids;
    encode_into(text, add_special_tokens, ids);
    return ids;
  }

  /// Appends the ids of `text` to `ids` (no allocation when `ids` has room).
  virtual void encode_into(std::string_view text, bool add_special_tokens,
                           std::vector<std::int32_t>& ids) const = 0;

  /// Text of `ids`, special tokens included; invalid UTF-8 that partial byte tokens would form
  /// is replaced with U+FFFD (as Hugging Face and tiktoken do). Unknown ids are skipped.
  virtual std::string decode(std::span<const std::int32_t> ids) const = 0;

  /// Number of tokens in `text` (add_special_tokens = false).
  virtual std::size_t count(std::string_view text) const;

  /// One past the largest token id; ids below it without a token are holes (tiktoken has some).
  virtual std::size_t vocab_size() const = 0;

  /// The token's string as the tokenizer file writes it (e.g. "Ġworld" for byte-level BPE,
  /// "▁world" for SentencePiece, the raw bytes for tiktoken), or nullopt for a hole.
  virtual std::optional<std::string> id_to_token(std::int32_t id) const = 0;

  /// The id of a token string written as id_to_token() gives it.
  virtual std::optional<std::int32_t> token_to_id(std::string_view token) const = 0;

  /// True for special/control tokens (BOS, EOS, chat markers, reserved tokens, <unk>).
  virtual bool is_special(std::int32_t id) const = 0;

  /// All special token ids, ascending.
  virtual std::vector<std::int32_t> special_ids() const = 0;

  /// Beginning/end-of-sequence ids when the tokenizer files say what they are.
  virtual std::optional<std::int32_t> bos_id() const = 0;
  virtual std::optional<std::int32_t> eos_id() const = 0;

  /// A short description: "tokenizer.json (BPE, byte-level)", "sentencepiece", "tiktoken ...".
  virtual std::string description() const = 0;
};

/// Options for load_tokenizer().
struct LoadOptions {
  /// Pre-split pattern and special tokens for a tiktoken rank file: "cl100k_base" or
  /// "o200k_base". Empty: taken from the file name (which must then contain one of the two).
  std::string tiktoken_encoding;
};

/// Loads a tokenizer from `path`:
///  - a folder: its tokenizer.json, else tokenizer.model, else its only *.tiktoken file;
///  - a file: *.json is tokenizer.json, *.model SentencePiece, *.tiktoken a tiktoken rank file;
///    other names are recognised by content;
///  - neither, and shaped as a Hugging Face model id "ORG/NAME" (one '/', both sides non-empty,
///    not starting with '/' or '.'): that model's snapshot in the local Hugging Face hub cache,
///    read as a folder. No network. The cache is $HF_HUB_CACHE, else $HF_HOME/hub, else
///    $XDG_CACHE_HOME/huggingface/hub, else $HOME/.cache/huggingface/hub; the model is
///    models--ORG--NAME in it, and its snapshot the revision that refs/main names, else the only
///    (or most recently modified) folder under snapshots/. A local path always wins.
/// tokenizer.json may have a tokenizer_config.json beside it; its bos_token/eos_token name the
/// BOS/EOS ids. Throws std::runtime_error with one line naming the file (or the model id and the
/// cache folder it looked in) and the problem. Reads the environment: not to be called while
/// another thread changes it.
std::unique_ptr<Tokenizer> load_tokenizer(const std::string& path, const LoadOptions& options = {});

}  // namespace tokenbench::tokenizer
