// client::make_adapter's adapters on whole replies and events: parse_event (one SSE event's data),
// parse_response (a non-streamed body) and error_message_from_body (an HTTP error body), for
// every API. The input is the bytes a server sent.

#include "tokenbench/client/api_adapter.h"

#include "fuzz_support.h"

namespace {

using tokenbench::client::ApiEvent;

std::size_t touch(const ApiEvent& ev) {
  std::size_t sum = 0;
  for (std::string_view s :
       {ev.content_text, ev.reasoning_text, ev.finish_reason, ev.error_message}) {
    for (const char c : s) sum += static_cast<unsigned char>(c);
  }
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = tokenbench::fuzz::as_view(data, size);
  volatile std::size_t sink = 0;
  using tokenbench::core::ApiKind;
  for (const auto api :
       {ApiKind::kOpenAIChat, ApiKind::kOpenAICompletions, ApiKind::kEmbeddings,
        ApiKind::kAnthropicMessages, ApiKind::kOpenAIResponses, ApiKind::kSglangGenerate}) {
    const auto adapter = tokenbench::client::make_adapter(api);
    const ApiEvent event = adapter->parse_event(bytes);
    sink = sink + touch(event);
    const ApiEvent reply = adapter->parse_response(bytes);
    sink = sink + touch(reply);
    if (event.content_bytes < 0 || reply.content_bytes < 0) {
      tokenbench::fuzz::fail("negative content_bytes");
    }
  }
  const std::string message = tokenbench::client::ApiAdapter::error_message_from_body(bytes);
  sink = sink + message.size();
  return 0;
}
