// OpenAI embeddings replies (POST /v1/embeddings), never streamed:
// {"object":"list","data":[{"object":"embedding","index":i,"embedding":[...]}],"model":M,
//  "usage":{"prompt_tokens":T,"total_tokens":T}}.

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "tokenbench/sim/reply_renderer.h"
#include "tokenbench/sim/sim_rng.h"

namespace tokenbench::sim {
namespace {

class EmbeddingsRenderer final : public ReplyRenderer {
 public:
  void reset(const ResponseIdentity& identity, const ReplyShape& shape) override {
    identity_ = identity;
    shape_ = &shape;
  }

  // Embeddings are never streamed: a stream renders as the whole reply would.
  void append_start(std::string&) override {}
  void append_token(std::string&, std::int64_t, std::string_view) override {}
  void append_end(std::string& out, const LlamaTimings* timings) override {
    append_whole(out, timings);
  }
  void append_error(std::string&) override {}
  void append_malformed(std::string& out) override { out += "{\"data\": this is not JSON"; }

  void append_whole(std::string& out, const LlamaTimings*) override {
    const ReplyShape& s = *shape_;
    out += "{\"object\":\"list\",\"data\":[";
    for (std::size_t i = 0; i < s.input_hashes.size(); ++i) {
      if (i > 0) out += ',';
      fmt::format_to(std::back_inserter(out),
                     "{{\"object\":\"embedding\",\"index\":{},\"embedding\":[", i);
      append_vector(out, s.seed, s.input_hashes[i], s.embedding_dim);
      out += "]}";
    }
    out += "],\"model\":\"";
    out += identity_.model;
    fmt::format_to(std::back_inserter(out),
                   "\",\"usage\":{{\"prompt_tokens\":{},\"total_tokens\":{}}}}}", s.prompt_tokens,
                   s.prompt_tokens);
  }

 private:
  // A unit vector of `dim` floats drawn from (seed, input hash): the same input always gets the
  // same vector.
  void append_vector(std::string& out, std::uint64_t seed, std::uint64_t hash, int dim) {
    values_.clear();
    double norm = 0;
    for (int j = 0; j < dim; ++j) {
      const std::uint64_t bits = mix_keys(seed, hash, static_cast<std::uint64_t>(j));
      const double v = static_cast<double>(bits >> 11) * 0x1.0p-53 * 2.0 - 1.0;
      values_.push_back(v);
      norm += v * v;
    }
    norm = norm > 0 ? std::sqrt(norm) : 1.0;
    for (int j = 0; j < dim; ++j) {
      if (j > 0) out += ',';
      fmt::format_to(std::back_inserter(out), "{}", static_cast<float>(values_[j] / norm));
    }
  }

  ResponseIdentity identity_;
  const ReplyShape* shape_ = nullptr;
  std::vector<double> values_;
};

}  // namespace

std::unique_ptr<ReplyRenderer> make_embeddings_renderer() {
  return std::make_unique<EmbeddingsRenderer>();
}

}  // namespace tokenbench::sim
