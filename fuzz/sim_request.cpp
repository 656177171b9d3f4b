// A generation request body as serve-sim reads it: sim::parse_completion_request, for both
// completion endpoints, with and without prefix-caching block hashes, and the Messages,
// Responses, embeddings and SGLang /generate parsers. The first input byte chooses the parser
// (bits 4-5: 0 the completion endpoints, 1 Messages, 2 Responses, 3 embeddings; bit 6 set:
// /generate), the completion endpoint (bit 0) and the hash block size (bits 1-3); the rest is
// the body.

#include <variant>

#include "fuzz_support.h"
#include "tokenbench/sim/generate_request.h"
#include "tokenbench/sim/messages_request.h"
#include "tokenbench/sim/openai_request.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  using namespace tokenbench::sim;
  const ApiKind api = (data[0] & 1) != 0 ? ApiKind::kChat : ApiKind::kCompletions;
  const std::int64_t block = (data[0] >> 1) & 7;
  const auto body = tokenbench::fuzz::as_view(data + 1, size - 1);
  const int parser = (data[0] & 0x40) != 0 ? 4 : (data[0] >> 4) & 3;
  const auto parsed = parser == 4   ? parse_generate_request(body, 16, block)
                      : parser == 1 ? parse_messages_request(body, "tiny-llama")
                      : parser == 2 ? parse_responses_request(body, "tiny-llama", 16)
                      : parser == 3 ? parse_embeddings_request(body, "tiny-llama")
                                    : parse_completion_request(api, body, "tiny-llama", 16, block);
  if (const auto* request = std::get_if<CompletionRequest>(&parsed)) {
    if (request->max_tokens < 0 || request->min_tokens < 0 || request->prompt_tokens < 0 ||
        request->image_tokens < 0 || request->images < 0) {
      tokenbench::fuzz::fail("a negative count in an accepted request");
    }
    if ((block == 0 || (parser != 0 && parser != 4)) && !request->block_hashes.empty())
      tokenbench::fuzz::fail("hashes unasked");
  } else {
    const auto& error = std::get<RequestError>(parsed);
    if (error.status < 400 || error.status > 599 || error.message.empty()) {
      tokenbench::fuzz::fail("a refusal without an error status and message");
    }
  }
  return 0;
}
