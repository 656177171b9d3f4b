#include "tokenbench/tokenizer/hf_tokenizer_json.h"

#include <simdjson.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "tokenbench/core/json_parse.h"
#include "tokenbench/tokenizer/byte_level.h"
#include "tokenbench/tokenizer/hf_tokenizer.h"
#include "tokenbench/tokenizer/regex.h"

namespace tokenbench::tokenizer {
namespace {

// Ids index dense tables; real vocabularies stay far below this (o200k: 200k), and the bound
// keeps a hostile file from asking for gigabytes.
constexpr std::int64_t kMaxTokenId = (1 << 24) - 1;

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

[[noreturn]] void fail(const std::string& message) { throw std::runtime_error(message); }

// The member `key` of `obj`, or nullopt when it is missing or null.
std::optional<element> member(element obj, std::string_view key) {
  element value;
  if (obj[key].get(value) != simdjson::SUCCESS || value.is_null()) return std::nullopt;
  return value;
}

std::string_view get_string(element obj, std::string_view key, std::string_view fallback = {}) {
  const auto value = member(obj, key);
  if (!value) return fallback;
  std::string_view s;
  if (value->get(s) != simdjson::SUCCESS) fail("\"" + std::string(key) + "\" is not a string");
  return s;
}

bool get_bool(element obj, std::string_view key, bool fallback) {
  const auto value = member(obj, key);
  if (!value) return fallback;
  bool b;
  if (value->get(b) != simdjson::SUCCESS) fail("\"" + std::string(key) + "\" is not a boolean");
  return b;
}

std::int64_t get_int(element obj, std::string_view key, std::int64_t fallback) {
  const auto value = member(obj, key);
  if (!value) return fallback;
  std::int64_t n;
  if (value->get(n) != simdjson::SUCCESS) fail("\"" + std::string(key) + "\" is not an integer");
  return n;
}

array get_array(element obj, std::string_view key) {
  const auto value = member(obj, key);
  array a;
  if (!value || value->get(a) != simdjson::SUCCESS) {
    fail("\"" + std::string(key) + "\" is missing or not an array");
  }
  return a;
}

std::string type_of(element obj, std::string_view what) {
  const std::string_view type = get_string(obj, "type");
  if (type.empty()) fail(std::string(what) + " without a \"type\"");
  return std::string(type);
}

// A `pattern` object: {"String": "..."} or {"Regex": "..."}.
std::unique_ptr<Regex> parse_pattern(element obj) {
  const auto pattern = member(obj, "pattern");
  if (!pattern) fail("a pattern is missing");
  if (const auto literal = member(*pattern, "String")) {
    std::string_view s;
    if (literal->get(s) != simdjson::SUCCESS) fail("a String pattern is not a string");
    return std::make_unique<Regex>(regex_escape(s));
  }
  if (const auto regex = member(*pattern, "Regex")) {
    std::string_view s;
    if (regex->get(s) != simdjson::SUCCESS) fail("a Regex pattern is not a string");
    return std::make_unique<Regex>(s);
  }
  fail("a pattern is neither String nor Regex");
}

bool contains_type(element obj, std::string_view type, std::string_view list_key) {
  if (get_string(obj, "type") == type) return true;
  if (const auto list = member(obj, list_key)) {
    array items;
    if (list->get(items) == simdjson::SUCCESS) {
      for (element item : items) {
        if (contains_type(item, type, list_key)) return true;
      }
    }
  }
  return false;
}

std::unique_ptr<Normalizer> parse_normalizer(element obj) {
  const std::string type = type_of(obj, "a normalizer");
  if (type == "NFC") return make_unicode_normalizer(UnicodeForm::kNfc);
  if (type == "NFD") return make_unicode_normalizer(UnicodeForm::kNfd);
  if (type == "NFKC") return make_unicode_normalizer(UnicodeForm::kNfkc);
  if (type == "NFKD") return make_unicode_normalizer(UnicodeForm::kNfkd);
  if (type == "Prepend") return make_prepend_normalizer(std::string(get_string(obj, "prepend")));
  if (type == "Lowercase") return make_lowercase_normalizer();
  if (type == "Strip") {
    return make_strip_normalizer(get_bool(obj, "strip_left", true),
                                 get_bool(obj, "strip_right", true));
  }
  if (type == "ByteLevel") return make_sequence_normalizer({});  // bytes are kept raw
  if (type == "Replace") {
    const std::string content(get_string(obj, "content"));
    if (const auto pattern = member(obj, "pattern")) {
      std::string_view literal;
      if (const auto s = member(*pattern, "String"); s && s->get(literal) == simdjson::SUCCESS) {
        return make_replace_normalizer(std::string(literal), content);
      }
    }
    return make_replace_normalizer(parse_pattern(obj), content);
  }
  if (type == "Sequence") {
    std::vector<std::unique_ptr<Normalizer>> steps;
    for (element item : get_array(obj, "normalizers")) steps.push_back(parse_normalizer(item));
    return make_sequence_normalizer(std::move(steps));
  }
  fail("unsupported normalizer \"" + type + "\"");
}

PrependScheme parse_prepend_scheme(element obj) {
  const std::string_view scheme = get_string(obj, "prepend_scheme");
  if (scheme.empty()) {
    return get_bool(obj, "add_prefix_space", true) ? PrependScheme::kAlways : PrependScheme::kNever;
  }
  if (scheme == "always") return PrependScheme::kAlways;
  if (scheme == "first") return PrependScheme::kFirst;
  if (scheme == "never") return PrependScheme::kNever;
  fail("unknown prepend_scheme \"" + std::string(scheme) + "\"");
}

SplitBehavior parse_behavior(std::string_view behavior) {
  if (behavior == "Removed") return SplitBehavior::kRemoved;
  if (behavior == "Isolated") return SplitBehavior::kIsolated;
  if (behavior == "MergedWithPrevious") return SplitBehavior::kMergedWithPrevious;
  if (behavior == "MergedWithNext") return SplitBehavior::kMergedWithNext;
  if (behavior == "Contiguous") return SplitBehavior::kContiguous;
  fail("unknown split behavior \"" + std::string(behavior) + "\"");
}

std::unique_ptr<PreTokenizer> parse_pre_tokenizer(element obj) {
  const std::string type = type_of(obj, "a pre_tokenizer");
  if (type == "ByteLevel") {
    return make_byte_level_pre_tokenizer(get_bool(obj, "add_prefix_space", true),
                                         get_bool(obj, "use_regex", true));
  }
  if (type == "Split") {
    return make_split_pre_tokenizer(parse_pattern(obj),
                                    parse_behavior(get_string(obj, "behavior", "Isolated")),
                                    get_bool(obj, "invert", false));
  }
  if (type == "Digits") return make_digits_pre_tokenizer(get_bool(obj, "individual_digits", false));
  if (type == "Metaspace") {
    return make_metaspace_pre_tokenizer(std::string(get_string(obj, "replacement", "\u2581")),
                                        parse_prepend_scheme(obj), get_bool(obj, "split", true));
  }
  if (type == "Whitespace") return make_whitespace_pre_tokenizer();
  if (type == "WhitespaceSplit") return make_whitespace_split_pre_tokenizer();
  if (type == "Sequence") {
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    for (element item : get_array(obj, "pretokenizers")) steps.push_back(parse_pre_tokenizer(item));
    return make_sequence_pre_tokenizer(std::move(steps));
  }
  fail("unsupported pre_tokenizer \"" + type + "\"");
}

std::unique_ptr<Decoder> parse_decoder(element obj) {
  const std::string type = type_of(obj, "a decoder");
  if (type == "ByteLevel") return make_byte_level_decoder();
  if (type == "Metaspace") {
    return make_metaspace_decoder(std::string(get_string(obj, "replacement", "\u2581")),
                                  parse_prepend_scheme(obj));
  }
  if (type == "Replace") {
    const auto pattern = member(obj, "pattern");
    std::string_view literal;
    if (!pattern || !member(*pattern, "String") ||
        member(*pattern, "String")->get(literal) != simdjson::SUCCESS) {
      fail("a Replace decoder needs a String pattern");
    }
    return make_replace_decoder(std::string(literal), std::string(get_string(obj, "content")));
  }
  if (type == "ByteFallback") return make_byte_fallback_decoder();
  if (type == "Fuse") return make_fuse_decoder();
  if (type == "Strip") {
    return make_strip_decoder(std::string(get_string(obj, "content", " ")),
                              static_cast<std::size_t>(get_int(obj, "start", 0)),
                              static_cast<std::size_t>(get_int(obj, "stop", 0)));
  }
  if (type == "Sequence") {
    std::vector<std::unique_ptr<Decoder>> steps;
    for (element item : get_array(obj, "decoders")) steps.push_back(parse_decoder(item));
    return make_sequence_decoder(std::move(steps));
  }
  fail("unsupported decoder \"" + type + "\"");
}

// Adds the ids that `obj` (a post_processor) puts around a single sequence.
void parse_post_processor(element obj, const TokenTable& strings, std::vector<std::int32_t>& prefix,
                          std::vector<std::int32_t>& suffix) {
  const std::string type = type_of(obj, "a post_processor");
  if (type == "ByteLevel") return;
  if (type == "Sequence") {
    for (element item : get_array(obj, "processors")) {
      parse_post_processor(item, strings, prefix, suffix);
    }
    return;
  }
  if (type == "RobertaProcessing" || type == "BertProcessing") {
    for (const char* key : {"cls", "sep"}) {
      array pair = get_array(obj, key);
      std::int64_t id;
      if (pair.at(1).get(id) != simdjson::SUCCESS) fail(std::string(key) + " has no id");
      (std::string_view(key) == "cls" ? prefix : suffix).push_back(static_cast<std::int32_t>(id));
    }
    return;
  }
  if (type != "TemplateProcessing") fail("unsupported post_processor \"" + type + "\"");
  const auto specials = member(obj, "special_tokens");
  prefix.clear();
  suffix.clear();
  bool seen_sequence = false;
  for (element item : get_array(obj, "single")) {
    if (member(item, "Sequence")) {
      seen_sequence = true;
      continue;
    }
    const auto special = member(item, "SpecialToken");
    if (!special) fail("TemplateProcessing item is neither Sequence nor SpecialToken");
    const std::string_view name = get_string(*special, "id");
    auto& out = seen_sequence ? suffix : prefix;
    const auto entry = specials ? member(*specials, name) : std::nullopt;
    if (entry) {
      for (element id : get_array(*entry, "ids")) {
        std::int64_t n;
        if (id.get(n) != simdjson::SUCCESS) fail("a special token id is not an integer");
        out.push_back(static_cast<std::int32_t>(n));
      }
    } else {
      const std::int32_t id = strings.find(name);
      if (id == TokenTable::kNone)
        fail("TemplateProcessing names unknown token " + std::string(name));
      out.push_back(id);
    }
  }
}

// bos_token / eos_token of tokenizer_config.json: a string, {"content": ...} or null.
std::optional<std::int32_t> config_token(const nlohmann::json& config, const char* key,
                                         const TokenTable& strings) {
  const auto it = config.find(key);
  if (it == config.end()) return std::nullopt;
  std::string name;
  if (it->is_string()) {
    name = it->get<std::string>();
  } else if (it->is_object() && it->contains("content") && (*it)["content"].is_string()) {
    name = (*it)["content"].get<std::string>();
  } else {
    return std::nullopt;
  }
  const std::int32_t id = strings.find(name);
  if (id == TokenTable::kNone) return std::nullopt;
  return id;
}

std::optional<std::int32_t> first_known(const TokenTable& strings,
                                        std::initializer_list<std::string_view> names) {
  for (const std::string_view name : names) {
    const std::int32_t id = strings.find(name);
    if (id != TokenTable::kNone) return id;
  }
  return std::nullopt;
}

HfTokenizerParts parse(element doc) {
  HfTokenizerParts parts;
  const auto model = member(doc, "model");
  if (!model) fail("no \"model\"");
  const std::string_view model_type = get_string(*model, "type", "BPE");
  if (model_type != "BPE") fail("unsupported model type \"" + std::string(model_type) + "\"");

  const auto normalizer = member(doc, "normalizer");
  const auto pre_tokenizer = member(doc, "pre_tokenizer");
  const auto decoder = member(doc, "decoder");
  const bool byte_level =
      (pre_tokenizer && contains_type(*pre_tokenizer, "ByteLevel", "pretokenizers")) ||
      (normalizer && contains_type(*normalizer, "ByteLevel", "normalizers")) ||
      (decoder && contains_type(*decoder, "ByteLevel", "decoders"));
  if (normalizer) parts.normalizer = parse_normalizer(*normalizer);
  if (pre_tokenizer) parts.pre_tokenizer = parse_pre_tokenizer(*pre_tokenizer);
  if (decoder) {
    parts.decoder = parse_decoder(*decoder);
    parts.byte_level_decode = get_string(*decoder, "type") == "ByteLevel";
  }

  // Vocabulary: byte-level tokens are stored as raw bytes for the model.
  const ByteLevelAlphabet& alphabet = ByteLevelAlphabet::get();
  const auto to_model_bytes = [&](std::string_view token) {
    if (!byte_level) return std::string(token);
    return alphabet.to_bytes(token).value_or(std::string(token));
  };
  const auto vocab_value = member(*model, "vocab");
  object vocab;
  if (!vocab_value || vocab_value->get(vocab) != simdjson::SUCCESS) fail("model has no vocab");
  TokenTable model_vocab;
  for (const auto field : vocab) {
    std::int64_t id;
    if (field.value.get(id) != simdjson::SUCCESS || id < 0 || id > kMaxTokenId) {
      fail("vocab entry " + std::string(field.key) + " has no valid id (0.." +
           std::to_string(kMaxTokenId) + ")");
    }
    model_vocab.add(to_model_bytes(field.key), static_cast<std::int32_t>(id));
    parts.token_strings.add(field.key, static_cast<std::int32_t>(id));
  }
  model_vocab.finish();

  if (const auto added = member(doc, "added_tokens")) {
    array items;
    if (added->get(items) != simdjson::SUCCESS) fail("\"added_tokens\" is not an array");
    for (element item : items) {
      AddedToken token;
      token.content = std::string(get_string(item, "content"));
      const std::int64_t id = get_int(item, "id", -1);
      if (id < 0 || id > kMaxTokenId) fail("added token " + token.content + " has no valid id");
      token.id = static_cast<std::int32_t>(id);
      token.special = get_bool(item, "special", false);
      token.single_word = get_bool(item, "single_word", false);
      token.lstrip = get_bool(item, "lstrip", false);
      token.rstrip = get_bool(item, "rstrip", false);
      token.normalized = get_bool(item, "normalized", !token.special);
      parts.token_strings.add(token.content, token.id);
      parts.added_tokens.push_back(std::move(token));
    }
  }
  parts.token_strings.finish();

  BpeOptions options;
  options.byte_level = byte_level;
  options.ignore_merges = get_bool(*model, "ignore_merges", false);
  options.byte_fallback = get_bool(*model, "byte_fallback", false);
  options.fuse_unk = get_bool(*model, "fuse_unk", false);
  options.continuing_subword_prefix = std::string(get_string(*model, "continuing_subword_prefix"));
  options.end_of_word_suffix = std::string(get_string(*model, "end_of_word_suffix"));
  if (const std::string_view unk = get_string(*model, "unk_token"); !unk.empty()) {
    options.unk_id = model_vocab.find(to_model_bytes(unk));
    if (options.unk_id == TokenTable::kNone)
      fail("unk_token " + std::string(unk) + " is not in vocab");
  }

  std::vector<std::pair<std::int32_t, std::int32_t>> merges;
  const array merge_list = get_array(*model, "merges");
  merges.reserve(merge_list.size());
  const auto merge_side = [&](std::string_view token, std::size_t index) {
    const std::int32_t id = model_vocab.find(to_model_bytes(token));
    if (id == TokenTable::kNone) {
      fail("merge " + std::to_string(index) + " uses " + std::string(token) + ", not in vocab");
    }
    return id;
  };
  for (element item : merge_list) {
    std::string_view text;
    std::string_view left, right;
    if (item.get(text) == simdjson::SUCCESS) {
      const std::size_t space = text.find(' ');
      if (space == std::string_view::npos || text.find(' ', space + 1) != std::string_view::npos) {
        fail("merge " + std::to_string(merges.size()) + " is not two tokens: " + std::string(text));
      }
      left = text.substr(0, space);
      right = text.substr(space + 1);
    } else {
      array pair;
      if (item.get(pair) != simdjson::SUCCESS || pair.size() != 2 ||
          pair.at(0).get(left) != simdjson::SUCCESS || pair.at(1).get(right) != simdjson::SUCCESS) {
        fail("merge " + std::to_string(merges.size()) + " is neither \"a b\" nor [a, b]");
      }
    }
    merges.emplace_back(merge_side(left, merges.size()), merge_side(right, merges.size()));
  }
  try {
    parts.model = std::make_unique<BpeModel>(std::move(model_vocab), merges, options);
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }

  if (const auto post = member(doc, "post_processor")) {
    parse_post_processor(*post, parts.token_strings, parts.prefix_ids, parts.suffix_ids);
  }
  parts.description = std::string("tokenizer.json (BPE") + (byte_level ? ", byte-level" : "") +
                      (options.byte_fallback ? ", byte fallback" : "") + ")";
  return parts;
}

}  // namespace

std::unique_ptr<Tokenizer> load_hf_tokenizer_json(const std::string& path,
                                                  const std::string& config_path) {
  HfTokenizerParts parts;
  try {
    simdjson::dom::parser parser;
    // simdjson counts the root container as depth 1 of max_depth - 1 allowed: one more than
    // kMaxJsonDepth lets exactly that many levels through.
    if (parser.allocate(4096, core::kMaxJsonDepth + 1) != simdjson::SUCCESS) fail("out of memory");
    element doc;
    if (const auto error = parser.load(path).get(doc); error == simdjson::DEPTH_ERROR) {
      fail("nested deeper than " + std::to_string(core::kMaxJsonDepth) +
           " levels, the limit of JSON documents read");
    } else if (error != simdjson::SUCCESS) {
      fail(std::string("not readable JSON: ") + simdjson::error_message(error));
    }
    parts = parse(doc);
  } catch (const std::exception& e) {
    throw std::runtime_error("tokenizer " + path + ": " + e.what());
  }
  // tokenizer_config.json (read with nlohmann: it may hold integers past 64 bits, such as
  // model_max_length, which simdjson rejects). Without it, well-known names stand in.
  std::optional<nlohmann::json> config;
  if (std::ifstream in(config_path); !config_path.empty() && in) {
    std::ostringstream text;
    text << in.rdbuf();
    config = core::parse_json_or_discarded(text.str());
    if (config->is_discarded() || !config->is_object()) config.reset();
  }
  if (config) {
    parts.bos_id = config_token(*config, "bos_token", parts.token_strings);
    parts.eos_id = config_token(*config, "eos_token", parts.token_strings);
  } else {
    parts.bos_id = !parts.prefix_ids.empty()
                       ? std::optional<std::int32_t>(parts.prefix_ids.front())
                       : first_known(parts.token_strings, {"<s>", "<|begin_of_text|>"});
    parts.eos_id =
        first_known(parts.token_strings, {"</s>", "<|end_of_text|>", "<|endoftext|>", "<eos>"});
  }
  return std::make_unique<HfTokenizer>(std::move(parts));
}

}  // namespace tokenbench::tokenizer
