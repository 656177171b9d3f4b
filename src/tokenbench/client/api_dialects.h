#pragma once

// Internal to client/: the adapters of the APIs beyond OpenAI's chat and completions, one file
// each, and what they share. Other modules use client::make_adapter (api_adapter.h).

#include <simdjson.h>

#include <memory>
#include <string_view>

#include "tokenbench/client/api_adapter.h"

namespace tokenbench::client {

/// Anthropic's Messages API (anthropic_adapter.cpp).
std::unique_ptr<ApiAdapter> make_anthropic_adapter();
/// OpenAI's Responses API (responses_adapter.cpp).
std::unique_ptr<ApiAdapter> make_responses_adapter();
/// OpenAI's embeddings API (embeddings_adapter.cpp).
std::unique_ptr<ApiAdapter> make_embeddings_adapter();
/// Rerank (a query and documents: vLLM's /v1/rerank, Jina's and Cohere's shape; TEI's reply,
/// a bare array, read too) or score (vLLM's /v1/score: text_1 against each text_2).
std::unique_ptr<ApiAdapter> make_rerank_adapter(core::ApiKind api);
/// SGLang's native /generate (generate_adapter.cpp).
std::unique_ptr<ApiAdapter> make_generate_adapter();

/// `parent[key]` when it is a string, else empty.
inline std::string_view string_field(const simdjson::dom::element& parent, const char* key) {
  std::string_view s;
  if (parent[key].get(s) == simdjson::SUCCESS) return s;
  return {};
}

/// `parent[key]` when it is a non-negative integer, else -1.
inline std::int64_t count_field(const simdjson::dom::element& parent, const char* key) {
  std::int64_t v = 0;
  if (parent[key].get(v) == simdjson::SUCCESS && v >= 0) return v;
  return -1;
}

/// An image part of an OpenAI chat message ({"type":"image_url","image_url":{"url":...}}): its
/// URL, or empty when `part` is not one.
std::string_view image_url_of(const nlohmann::json& part);

}  // namespace tokenbench::client
