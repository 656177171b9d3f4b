#include "tokenbench/sim/rerank_request.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/sim/request_fields.h"
#include "tokenbench/sim/sim_rng.h"

namespace tokenbench::sim {
namespace {

using fields::bad_request;
using fields::parse_object;
using nlohmann::json;

// A field that is a string or a non-empty array of strings, as a list of views into `body`.
std::optional<RequestError> read_texts(const json& body, const char* key, bool allow_string,
                                       std::vector<const std::string*>& out) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) {
    return bad_request(fmt::format("'{}' is a required property.", key));
  }
  if (allow_string && it->is_string()) {
    out.push_back(&it->get_ref<const std::string&>());
    return std::nullopt;
  }
  const auto wrong = bad_request(
      fmt::format("'{}' must be {}.", key,
                  allow_string ? "a string or an array of strings" : "an array of strings"));
  if (!it->is_array()) return wrong;
  if (it->empty()) return bad_request(fmt::format("'{}' must not be empty.", key));
  if (static_cast<std::int64_t>(it->size()) > kMaxRerankDocuments) {
    return bad_request(fmt::format("'{}' holds {} texts; at most {} are accepted.", key, it->size(),
                                   kMaxRerankDocuments));
  }
  for (const json& t : *it) {
    if (!t.is_string()) return wrong;
    out.push_back(&t.get_ref<const std::string&>());
  }
  return std::nullopt;
}

// Counts one (query, document) pair: both texts' tokens, and a hash of the pair for its score.
void add_pair(const std::string& query, const std::string& document, CompletionRequest& req) {
  req.prompt_tokens += core::approx_token_count(query) + core::approx_token_count(document);
  req.input_hashes.push_back(mix_keys(fields::fnv1a(query), fields::fnv1a(document)));
}

// Both are answered as embeddings are: one prefill of every pair's tokens and no text.
CompletionRequest pooling_request(ApiKind api) {
  CompletionRequest req;
  req.api = api;
  req.max_tokens = 1;
  req.ignore_eos = true;
  return req;
}

}  // namespace

std::variant<CompletionRequest, RequestError> parse_rerank_request(std::string_view text,
                                                                   std::string_view served_model) {
  std::optional<RequestError> error;
  const json body = parse_object(text, error);
  if (error) return *error;
  if (auto err = fields::check_model(body, served_model)) return *err;
  const auto query = body.find("query");
  if (query == body.end() || query->is_null())
    return bad_request("'query' is a required property.");
  if (!query->is_string()) return bad_request("'query' must be a string.");
  std::vector<const std::string*> documents;
  const char* key = body.contains("documents") || !body.contains("texts") ? "documents" : "texts";
  if (auto err = read_texts(body, key, /*allow_string=*/false, documents)) return *err;
  CompletionRequest req = pooling_request(ApiKind::kRerank);
  bool top_n_given = false;
  if (!fields::read_count(body, "top_n", req.top_n, top_n_given)) {
    return bad_request("'top_n' must be a non-negative integer.");
  }
  if (!fields::read_bool(body, "return_documents", req.return_documents)) {
    return bad_request("'return_documents' must be a boolean.");
  }
  const std::string& q = query->get_ref<const std::string&>();
  req.documents.reserve(documents.size());
  for (const std::string* d : documents) {
    add_pair(q, *d, req);
    req.documents.push_back(*d);
  }
  return req;
}

std::variant<CompletionRequest, RequestError> parse_score_request(std::string_view text,
                                                                  std::string_view served_model) {
  std::optional<RequestError> error;
  const json body = parse_object(text, error);
  if (error) return *error;
  if (auto err = fields::check_model(body, served_model)) return *err;
  std::vector<const std::string*> first;
  std::vector<const std::string*> second;
  if (auto err = read_texts(body, "text_1", /*allow_string=*/true, first)) return *err;
  if (auto err = read_texts(body, "text_2", /*allow_string=*/true, second)) return *err;
  if (first.size() != 1 && first.size() != second.size()) {
    return bad_request(fmt::format(
        "'text_1' ({} texts) and 'text_2' ({} texts) must have the same length, or 'text_1' a "
        "single text.",
        first.size(), second.size()));
  }
  CompletionRequest req = pooling_request(ApiKind::kScore);
  for (std::size_t i = 0; i < second.size(); ++i) {
    add_pair(*first[first.size() == 1 ? 0 : i], *second[i], req);
  }
  return req;
}

}  // namespace tokenbench::sim
