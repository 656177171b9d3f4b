#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "tokenbench/core/request.h"

namespace tokenbench::core {

/// FNV-1a: a cheap, stable hash of a word.
std::uint64_t fnv1a(std::string_view text);

/// Chains a prompt's tokens into the hashes of its full blocks, as vLLM's block hashes do: a
/// block's hash stands for its tokens and every token before them. A token is a word as
/// core::approx_token_count counts them (or an id given as is); a role starts a message. The
/// ideal cache (prompt_blocks) and serve-sim's parsers of every API read prompts through one, so
/// that both count and split a prompt alike. Appends to `hashes`; `block_tokens` 0 hashes
/// nothing.
class PromptChain {
 public:
  PromptChain(std::int64_t block_tokens, std::vector<std::uint64_t>& hashes)
      : block_(block_tokens), hashes_(hashes) {}

  void add_role(std::string_view role);
  void add_token(std::uint64_t token);
  /// The words of `text`, a token each.
  void add_text(std::string_view text);
  /// A string, or the "text" of every part of an array of parts.
  void add_content(const nlohmann::json& content);
  /// A JSON value's text: a string as it is, anything else (a tool call's input) as its JSON.
  void add_json(const nlohmann::json& value);
  /// The tokens read so far.
  std::int64_t tokens() const { return tokens_; }

 private:
  std::int64_t block_;
  std::vector<std::uint64_t>& hashes_;
  std::uint64_t state_ = 0x9f2c;
  std::int64_t tokens_ = 0;
};

/// A prompt as a prefix cache sees it: the chained hashes of its full blocks of `block_tokens`
/// tokens (a block's hash stands for its tokens and every token before them, as vLLM's block
/// hashes do), and its tokens. A token is a word as core::approx_token_count counts them; a chat
/// request's messages are read in order, each role starting its message, then its text (content,
/// or its parts' text; an assistant's tool calls' names and arguments). A request without
/// messages is its prompt as one user message. Pure; any thread.
struct PromptBlocks {
  std::vector<std::uint64_t> hashes;
  std::int64_t tokens = 0;
};
PromptBlocks prompt_blocks(const RequestSpec& spec, std::int64_t block_tokens);
/// Sets spec.prefix_blocks and prefix_tokens from prompt_blocks (nothing when `block_tokens` is
/// 0).
void set_prefix_blocks(RequestSpec& spec, std::int64_t block_tokens);

/// The most distinct blocks an IdealCache remembers (64 MiB of table): past it, new blocks are
/// not remembered, and capped() says so.
inline constexpr std::size_t kMaxIdealBlocks = std::size_t{1} << 22;

/// The prefix cache a server could at best have had for the prompts a run sent: unlimited (up to
/// kMaxIdealBlocks blocks) and never evicting, in blocks of `block_tokens`. Each prompt, in the
/// order sent, finds the longest run of leading blocks any earlier prompt had, then leaves its
/// own blocks for later ones (docs/METRICS.md, "Prefix caching"). Thread-safe: one lock per
/// prompt, held for a lookup and an insert per block.
class IdealCache {
 public:
  explicit IdealCache(std::int64_t block_tokens, std::size_t max_blocks = kMaxIdealBlocks);

  /// The tokens of `blocks` an ideal cache held when it was sent (whole blocks only), and
  /// remembers its blocks.
  std::int64_t observe(const std::vector<std::uint64_t>& blocks);
  std::int64_t block_tokens() const { return block_; }
  /// True once a block was not remembered for lack of room.
  bool capped() const;

 private:
  bool contains(std::uint64_t h) const;
  void insert(std::uint64_t h);

  const std::int64_t block_;
  const std::size_t max_blocks_;
  mutable std::mutex mutex_;
  std::vector<std::uint64_t> table_;  // open addressing, linear probing; 0: empty
  std::size_t size_ = 0;
  bool capped_ = false;
};

}  // namespace tokenbench::core
