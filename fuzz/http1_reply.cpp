// The native transport's HTTP/1.1 response reader (client::Http1Reader over Boost.Beast's
// parser), as a worker runs it: bytes arrive in reads of any size, what a read leaves unparsed
// is presented again with the next one, and the connection may end at any point.
//
// Input: one byte choosing how the rest is split into reads, then the reply's bytes. Invariants
// checked: the status, fields and body do not depend on how the bytes were split, and the reader
// never consumes more than it was given.

#include <string>
#include <vector>

#include "fuzz_support.h"
#include "response_log.h"
#include "tokenbench/client/http1_reader.h"

namespace {

using tokenbench::client::Http1Reader;

// The log and the final result of reading `reply` in pieces (`splitter` null: one piece).
std::string read_all(std::string_view reply, tokenbench::fuzz::Splitter* splitter) {
  tokenbench::fuzz::ResponseLog seen;
  Http1Reader reader;
  reader.reset(&seen, 64 * 1024);
  std::string pending;
  Http1Reader::Result result = Http1Reader::Result::kMore;
  while (!reply.empty() && result == Http1Reader::Result::kMore) {
    const std::size_t n =
        splitter == nullptr ? reply.size() : std::min(splitter->next(), reply.size());
    pending.append(reply.substr(0, n));
    reply.remove_prefix(n);
    std::size_t consumed = 0;
    result = reader.feed(pending, consumed);
    if (consumed > pending.size()) tokenbench::fuzz::fail("consumed more than it was given");
    pending.erase(0, consumed);
  }
  if (result == Http1Reader::Result::kMore) result = reader.end_of_stream();
  // Errors may be found at different points of a split stream; only complete replies compare.
  if (result != Http1Reader::Result::kDone) return "not complete";
  return seen.log + (reader.keep_alive() ? "keep-alive" : "close");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tokenbench::fuzz::check_split_invariant(
      data, size, read_all, "not complete",
      "the reply read depends on how the bytes were split into reads");
  return 0;
}
