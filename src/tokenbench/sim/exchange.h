#pragma once

#include <cstdint>
#include <string>

#include "tokenbench/core/clock.h"
#include "tokenbench/sim/fault_injector.h"
#include "tokenbench/sim/generation_plan.h"
#include "tokenbench/sim/openai_render.h"
#include "tokenbench/sim/openai_request.h"
#include "tokenbench/sim/reply_shape.h"

namespace tokenbench::sim {

/// The APIs that generate text (and so take part in a prefill/decode split): chat, completions,
/// Messages, Responses; not embeddings, rerank or score.
inline bool generates_text(ApiKind api) {
  return api == ApiKind::kChat || api == ApiKind::kCompletions || api == ApiKind::kMessages ||
         api == ApiKind::kResponses;
}

/// The state of the generation request that a connection is serving (one at a time): what was
/// asked, what the reply will carry, and how far it has got. Owned by the connection and reused
/// from one request to the next (strings keep their storage); io thread only.
struct Exchange {
  CompletionRequest request;
  GenerationPlan plan;
  ReplyShape shape;  ///< views into request
  FaultDecision fault;
  std::uint64_t arrival = 0;
  std::string id;               ///< the response id
  ResponseIdentity identity;    ///< views into id and the server's model name
  std::int64_t next_token = 0;  ///< the next token to send
  std::int64_t fault_at = 0;    ///< a mid-stream fault strikes before this token
  bool fault_done = false;
  bool ended = false;                 ///< the stream's last event is rendered
  bool cut = false;                   ///< the stream ends by closing the connection (stream_cut)
  core::Clock::time_point received;   ///< when the request had been read
  core::Clock::time_point start;      ///< received, plus any slow_first_byte pause
  core::Clock::time_point generated;  ///< a whole reply: when its last token was generated
  /// Role::kDecode: what is sent to the prefill worker (its path, body and Authorization), empty
  /// when the request needs no prefill call (embeddings, rerank, score).
  std::string prefill_path;
  std::string prefill_body;
  std::string prefill_auth;
  bool kv_transferred = false;  ///< Role::kDecode: the prefill worker answered and the KV came

  /// The fault turns the request into an abort whatever happens (a cut or an error reply).
  bool fault_aborts() const {
    return fault.kind == FaultKind::kStreamCut || fault.kind == FaultKind::kErrorEvent;
  }
};

}  // namespace tokenbench::sim
