#include "tokenbench/tokenizer/hf_tokenizer.h"

#include <algorithm>

#include "tokenbench/tokenizer/scratch.h"
#include "tokenbench/tokenizer/utf8.h"

namespace tokenbench::tokenizer {
namespace {

// Working storage of one encode call, reused by the thread's next call.
struct EncodeScratch {
  std::string sanitized;
  std::vector<Segment> segments;
  std::vector<Segment> normalized_segments;
  std::string normalized;
  PreTokenized words;

  // Frees what one large input grew (see kScratchKeepBytes); views into it are stale anyway.
  void release_large() {
    release_if_large(sanitized);
    release_if_large(segments);
    release_if_large(normalized_segments);
    release_if_large(normalized);
    release_if_large(words.pieces);
    release_if_large(words.next);
    words.owned.clear();
  }
};

EncodeScratch& encode_scratch() {
  thread_local EncodeScratch scratch;
  return scratch;
}

}  // namespace

HfTokenizer::HfTokenizer(HfTokenizerParts parts) : parts_(std::move(parts)) {
  std::vector<AddedToken> raw, normalized;
  for (const AddedToken& token : parts_.added_tokens) {
    (token.normalized ? normalized : raw).push_back(token);
    if (token.special) special_ids_.push_back(token.id);
    if (token.id >= 0) {
      if (static_cast<std::size_t>(token.id) >= added_content_.size()) {
        added_content_.resize(token.id + 1);
      }
      added_content_[token.id] = token.content;
    }
  }
  raw_matcher_ = AddedTokenMatcher(raw);
  normalized_matcher_ = AddedTokenMatcher(normalized);
  std::sort(special_ids_.begin(), special_ids_.end());
  special_ids_.erase(std::unique(special_ids_.begin(), special_ids_.end()), special_ids_.end());
}

void HfTokenizer::encode_into(std::string_view text, bool add_special_tokens,
                              std::vector<std::int32_t>& ids) const {
  EncodeScratch& s = encode_scratch();
  if (!is_valid_utf8(text)) {
    s.sanitized = sanitize_utf8(text);
    text = s.sanitized;
  }
  if (add_special_tokens) ids.insert(ids.end(), parts_.prefix_ids.begin(), parts_.prefix_ids.end());
  if (raw_matcher_.empty()) {
    encode_stretch(text, true, ids);
  } else {
    s.segments.clear();
    raw_matcher_.split(text, s.segments);
    for (std::size_t i = 0; i < s.segments.size(); ++i) {
      const Segment segment = s.segments[i];
      if (segment.id >= 0) {
        ids.push_back(segment.id);
      } else {
        encode_stretch(segment.text, segment.text.data() == text.data(), ids);
      }
    }
  }
  if (add_special_tokens) ids.insert(ids.end(), parts_.suffix_ids.begin(), parts_.suffix_ids.end());
  s.release_large();
}

void HfTokenizer::encode_stretch(std::string_view text, bool at_origin,
                                 std::vector<std::int32_t>& ids) const {
  EncodeScratch& s = encode_scratch();
  std::string_view normalized = text;
  if (parts_.normalizer != nullptr) {
    s.normalized.assign(text);
    parts_.normalizer->normalize(s.normalized);
    normalized = s.normalized;
  }
  if (normalized_matcher_.empty()) {
    encode_words(normalized, at_origin, ids);
    return;
  }
  s.normalized_segments.clear();
  normalized_matcher_.split(normalized, s.normalized_segments);
  for (std::size_t i = 0; i < s.normalized_segments.size(); ++i) {
    const Segment segment = s.normalized_segments[i];
    if (segment.id >= 0) {
      ids.push_back(segment.id);
    } else {
      encode_words(segment.text, at_origin && segment.text.data() == normalized.data(), ids);
    }
  }
}

void HfTokenizer::encode_words(std::string_view text, bool at_origin,
                               std::vector<std::int32_t>& ids) const {
  if (text.empty()) return;
  if (parts_.pre_tokenizer == nullptr) {
    parts_.model->encode_word(text, ids);
    return;
  }
  PreTokenized& words = encode_scratch().words;
  words.reset(text, at_origin);
  parts_.pre_tokenizer->pre_tokenize(words);
  for (const std::string_view word : words.pieces) parts_.model->encode_word(word, ids);
}

std::string HfTokenizer::decode(std::span<const std::int32_t> ids) const {
  const auto added = [&](std::int32_t id) -> const std::string* {
    if (id < 0 || static_cast<std::size_t>(id) >= added_content_.size()) return nullptr;
    return added_content_[id].empty() ? nullptr : &added_content_[id];
  };
  if (parts_.byte_level_decode) {
    std::string bytes;
    for (const std::int32_t id : ids) {
      if (const std::string* content = added(id)) {
        bytes.append(*content);
      } else {
        bytes.append(parts_.model->vocab().bytes(id));
      }
    }
    return is_valid_utf8(bytes) ? bytes : sanitize_utf8(bytes);
  }
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const std::int32_t id : ids) {
    if (const std::string* content = added(id)) {
      tokens.push_back(*content);
    } else if (parts_.token_strings.contains_id(id)) {
      tokens.emplace_back(parts_.token_strings.bytes(id));
    }
  }
  std::string out;
  if (parts_.decoder != nullptr) {
    parts_.decoder->decode_chain(tokens);
    for (const std::string& t : tokens) out.append(t);
  } else {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (i > 0) out.push_back(' ');
      out.append(tokens[i]);
    }
  }
  return is_valid_utf8(out) ? out : sanitize_utf8(out);
}

std::size_t HfTokenizer::vocab_size() const { return parts_.token_strings.id_limit(); }

std::optional<std::string> HfTokenizer::id_to_token(std::int32_t id) const {
  if (!parts_.token_strings.contains_id(id)) return std::nullopt;
  return std::string(parts_.token_strings.bytes(id));
}

std::optional<std::int32_t> HfTokenizer::token_to_id(std::string_view token) const {
  const std::int32_t id = parts_.token_strings.find(token);
  if (id == TokenTable::kNone) return std::nullopt;
  return id;
}

bool HfTokenizer::is_special(std::int32_t id) const {
  return std::binary_search(special_ids_.begin(), special_ids_.end(), id);
}

}  // namespace tokenbench::tokenizer
