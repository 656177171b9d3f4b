#include "tokenbench/core/ideal_cache.h"

#include <nlohmann/json.hpp>
#include <string>

#include "tokenbench/core/json_parse.h"

namespace tokenbench::core {
namespace {

using nlohmann::json;

// splitmix64's finaliser over the pair: the chain's next state.
std::uint64_t mix(std::uint64_t state, std::uint64_t value) {
  std::uint64_t z = state + 0x9E3779B97F4A7C15ULL * (value + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

void PromptChain::add_role(std::string_view role) { state_ = mix(state_, fnv1a(role) ^ 0x201eULL); }

void PromptChain::add_token(std::uint64_t token) {
  ++tokens_;
  if (block_ <= 0) return;
  state_ = mix(state_, token);
  if (tokens_ % block_ == 0) hashes_.push_back(state_ == 0 ? 1 : state_);  // 0 marks empty
}

void PromptChain::add_text(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && space(text[i])) ++i;
    const std::size_t start = i;
    while (i < text.size() && !space(text[i])) ++i;
    if (i > start) add_token(fnv1a(text.substr(start, i - start)));
  }
}

void PromptChain::add_content(const json& content) {
  if (content.is_string()) return add_text(content.get_ref<const std::string&>());
  if (!content.is_array()) return;
  for (const json& part : content) {
    if (!part.is_object()) continue;
    const auto text = part.find("text");
    if (text != part.end() && text->is_string()) add_text(text->get_ref<const std::string&>());
  }
}

void PromptChain::add_json(const json& value) {
  if (value.is_null()) return;
  if (value.is_string()) return add_text(value.get_ref<const std::string&>());
  add_text(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

PromptBlocks prompt_blocks(const RequestSpec& spec, std::int64_t block_tokens) {
  PromptBlocks out;
  if (block_tokens <= 0) return out;
  PromptChain chain(block_tokens, out.hashes);
  const json messages =
      spec.messages_json.empty() ? json() : parse_json_or_discarded(spec.messages_json);
  if (!messages.is_array()) {
    chain.add_role("user");
    chain.add_text(spec.prompt);
    out.tokens = chain.tokens();
    return out;
  }
  for (const json& m : messages) {
    if (!m.is_object()) continue;
    chain.add_role(m.value("role", ""));
    if (const auto content = m.find("content"); content != m.end()) chain.add_content(*content);
    const auto calls = m.find("tool_calls");
    if (calls == m.end() || !calls->is_array()) continue;
    for (const json& call : *calls) {
      const auto fn = call.is_object() ? call.find("function") : call.end();
      if (!call.is_object() || fn == call.end() || !fn->is_object()) continue;
      for (const char* key : {"name", "arguments"}) {
        if (const auto v = fn->find(key); v != fn->end()) chain.add_json(*v);
      }
    }
  }
  out.tokens = chain.tokens();
  return out;
}

void set_prefix_blocks(RequestSpec& spec, std::int64_t block_tokens) {
  if (block_tokens <= 0) return;
  PromptBlocks b = prompt_blocks(spec, block_tokens);
  spec.prefix_blocks = std::move(b.hashes);
  spec.prefix_tokens = b.tokens;
}

IdealCache::IdealCache(std::int64_t block_tokens, std::size_t max_blocks)
    : block_(block_tokens), max_blocks_(max_blocks), table_(1024, 0) {}

bool IdealCache::contains(std::uint64_t h) const {
  const std::size_t mask = table_.size() - 1;
  for (std::size_t i = h & mask;; i = (i + 1) & mask) {
    if (table_[i] == h) return true;
    if (table_[i] == 0) return false;
  }
}

void IdealCache::insert(std::uint64_t h) {
  if (size_ >= max_blocks_) {
    capped_ = true;
    return;
  }
  if (2 * (size_ + 1) > table_.size()) {  // keep the load under a half
    std::vector<std::uint64_t> old(table_.size() * 2, 0);
    old.swap(table_);
    size_ = 0;
    for (const std::uint64_t v : old) {
      if (v != 0) insert(v);
    }
  }
  const std::size_t mask = table_.size() - 1;
  std::size_t i = h & mask;
  while (table_[i] != 0) {
    if (table_[i] == h) return;
    i = (i + 1) & mask;
  }
  table_[i] = h;
  ++size_;
}

std::int64_t IdealCache::observe(const std::vector<std::uint64_t>& blocks) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t hits = 0;
  while (hits < blocks.size() && contains(blocks[hits])) ++hits;
  for (std::size_t i = hits; i < blocks.size(); ++i) insert(blocks[i]);
  return static_cast<std::int64_t>(hits) * block_;
}

bool IdealCache::capped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return capped_;
}

}  // namespace tokenbench::core
