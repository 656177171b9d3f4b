// The SSE framer and the event handling behind it, as a worker runs them on a streamed reply:
// bytes -> client::SseParser -> client::OpenAIAdapter::parse_event.
//
// Input: one byte choosing the API (bit 0) and how the rest is split into reads, then the
// stream's bytes. Invariant checked: the events do not depend on how the bytes were split.

#include <string>
#include <vector>

#include "fuzz_support.h"
#include "tokenbench/client/api_adapter.h"
#include "tokenbench/client/sse_parser.h"

namespace {

using tokenbench::client::ApiEvent;
using tokenbench::client::OpenAIAdapter;
using tokenbench::client::SseParser;

std::vector<std::string> events_of(SseParser& parser, std::string_view stream,
                                   tokenbench::fuzz::Splitter* splitter) {
  std::vector<std::string> events;
  auto on_event = [&](std::string_view data) { events.emplace_back(data); };
  if (splitter == nullptr) {
    parser.feed(stream, on_event);
  } else {
    while (!stream.empty()) {
      const std::size_t n = std::min(splitter->next(), stream.size());
      parser.feed(stream.substr(0, n), on_event);
      stream.remove_prefix(n);
    }
  }
  parser.finish(on_event);
  if (parser.has_partial()) tokenbench::fuzz::fail("finish() left a partial event");
  return events;
}

// Reads every view the event holds, so that ASan sees a view into freed or foreign memory.
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
  if (size < 1) return 0;
  const std::uint8_t control = data[0];
  const std::string_view stream = tokenbench::fuzz::as_view(data + 1, size - 1);

  SseParser whole;
  const auto expected = events_of(whole, stream, nullptr);
  SseParser split;
  tokenbench::fuzz::Splitter splitter(control);
  if (events_of(split, stream, &splitter) != expected) {
    tokenbench::fuzz::fail("events depend on how the stream was split into reads");
  }
  // A parser reused after reset() (a worker's next transfer) sees the same events.
  split.reset();
  if (events_of(split, stream, nullptr) != expected) tokenbench::fuzz::fail("reset() kept state");

  OpenAIAdapter adapter((control & 1) != 0 ? tokenbench::core::ApiKind::kOpenAIChat
                                           : tokenbench::core::ApiKind::kOpenAICompletions);
  volatile std::size_t sink = 0;
  for (const std::string& event : expected) {
    const ApiEvent ev = adapter.parse_event(event);
    sink = sink + touch(ev);
    if (ev.content_bytes < 0) tokenbench::fuzz::fail("negative content_bytes");
  }
  return 0;
}
