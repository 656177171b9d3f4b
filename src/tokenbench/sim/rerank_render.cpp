// Rerank and score replies (POST /v1/rerank, /rerank, /v2/rerank; /v1/score, /score), never
// streamed, as vLLM serves them:
//   {"id":"rerank-…","model":M,"usage":{"total_tokens":T},"results":[{"index":i,
//    "document":{"text":…},"relevance_score":s}]}  (by score, descending; top_n of them)
//   {"id":"score-…","object":"list","created":C,"model":M,"data":[{"index":i,"object":"score",
//    "score":s}],"usage":{"prompt_tokens":T,"total_tokens":T}}

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "tokenbench/sim/reply_renderer.h"
#include "tokenbench/sim/sim_rng.h"

namespace tokenbench::sim {
namespace {

// Keeps the scores' draws apart from every other use of the seed.
constexpr std::uint64_t kScoreStream = 0x5c0e;

// A pair's score in [0, 1): a function of the seed and the pair's texts only.
double pair_score(std::uint64_t seed, std::uint64_t pair_hash) {
  return to_unit(mix_keys(seed, pair_hash, kScoreStream));
}

// What both replies share: never streamed (a stream renders as the whole reply would).
class PoolingRenderer : public ReplyRenderer {
 public:
  void reset(const ResponseIdentity& identity, const ReplyShape& shape) override {
    identity_ = identity;
    shape_ = &shape;
  }
  void append_start(std::string&) override {}
  void append_token(std::string&, std::int64_t, std::string_view) override {}
  void append_end(std::string& out, const LlamaTimings* timings) override {
    append_whole(out, timings);
  }
  void append_error(std::string&) override {}
  void append_malformed(std::string& out) override { out += "{\"results\": this is not JSON"; }

 protected:
  ResponseIdentity identity_;
  const ReplyShape* shape_ = nullptr;
};

class RerankRenderer final : public PoolingRenderer {
 public:
  void append_whole(std::string& out, const LlamaTimings*) override {
    const ReplyShape& s = *shape_;
    const std::size_t n = s.input_hashes.size();
    scores_.resize(n);
    order_.resize(n);
    for (std::size_t i = 0; i < n; ++i) scores_[i] = pair_score(s.seed, s.input_hashes[i]);
    std::iota(order_.begin(), order_.end(), std::size_t{0});
    // Highest score first; equal scores keep the documents' order.
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::size_t a, std::size_t b) { return scores_[a] > scores_[b]; });
    const std::size_t shown = s.top_n > 0 ? std::min(n, static_cast<std::size_t>(s.top_n)) : n;
    out += "{\"id\":\"";
    out += identity_.id;
    out += "\",\"model\":\"";
    out += identity_.model;
    fmt::format_to(std::back_inserter(out), "\",\"usage\":{{\"total_tokens\":{}}},\"results\":[",
                   s.prompt_tokens);
    for (std::size_t k = 0; k < shown; ++k) {
      const std::size_t i = order_[k];
      if (k > 0) out += ',';
      fmt::format_to(std::back_inserter(out), "{{\"index\":{},", i);
      if (s.return_documents && i < s.documents.size()) {
        out += "\"document\":{\"text\":\"";
        append_json_escaped(out, s.documents[i]);
        out += "\"},";
      }
      fmt::format_to(std::back_inserter(out), "\"relevance_score\":{}}}", scores_[i]);
    }
    out += "]}";
  }

 private:
  std::vector<double> scores_;
  std::vector<std::size_t> order_;
};

class ScoreRenderer final : public PoolingRenderer {
 public:
  void append_whole(std::string& out, const LlamaTimings*) override {
    const ReplyShape& s = *shape_;
    out += "{\"id\":\"";
    out += identity_.id;
    fmt::format_to(std::back_inserter(out), "\",\"object\":\"list\",\"created\":{},\"model\":\"",
                   identity_.created);
    out += identity_.model;
    out += "\",\"data\":[";
    for (std::size_t i = 0; i < s.input_hashes.size(); ++i) {
      if (i > 0) out += ',';
      fmt::format_to(std::back_inserter(out), "{{\"index\":{},\"object\":\"score\",\"score\":{}}}",
                     i, pair_score(s.seed, s.input_hashes[i]));
    }
    fmt::format_to(std::back_inserter(out),
                   "],\"usage\":{{\"prompt_tokens\":{},\"total_tokens\":{}}}}}", s.prompt_tokens,
                   s.prompt_tokens);
  }
};

}  // namespace

std::unique_ptr<ReplyRenderer> make_rerank_renderer() { return std::make_unique<RerankRenderer>(); }

std::unique_ptr<ReplyRenderer> make_score_renderer() { return std::make_unique<ScoreRenderer>(); }

}  // namespace tokenbench::sim
