#pragma once

#include <cstdint>
#include <string_view>
#include <variant>

#include "tokenbench/sim/openai_request.h"

namespace tokenbench::sim {

/// The most documents (rerank) or pairs (score) one request may carry.
inline constexpr std::int64_t kMaxRerankDocuments = 1000;

/// Parses POST /v1/rerank (also /rerank, /v2/rerank): "query" (a string), "documents" (an array of
/// strings; "texts" as TEI names it), "top_n" (0 or absent: all), "return_documents" (default
/// true). The request is one prefill of the (query, document) pairs' tokens: prompt_tokens is the
/// sum over pairs of the query's and the document's tokens, input_hashes one hash per pair.
/// 400 for a missing or mistyped field, an empty list, or more than kMaxRerankDocuments. Pure;
/// any thread.
std::variant<CompletionRequest, RequestError> parse_rerank_request(std::string_view body,
                                                                   std::string_view served_model);

/// Parses POST /v1/score (also /score): "text_1" and "text_2", each a string or an array of
/// strings. A single text_1 (a string or a one-element array) pairs with each text_2; otherwise
/// the arrays pair element by element and their lengths must match (400). Tokens and hashes per
/// pair as parse_rerank_request(). Pure; any thread.
std::variant<CompletionRequest, RequestError> parse_score_request(std::string_view body,
                                                                  std::string_view served_model);

}  // namespace tokenbench::sim
