// The native transport's HTTP/2 client session (client::Http2Session over libnghttp2), as a
// worker runs it: three streams are open, and the server's bytes arrive in reads of any size.
//
// Input: one byte choosing how the rest is split into reads, then the server's bytes (its
// preface, SETTINGS, and the frames of streams 1, 3 and 5). Invariants checked: nothing crashes
// or leaks whatever the bytes; each stream is reported closed at most once; and what each stream
// saw (status, fields, body, how it ended) does not depend on how the bytes were split.

#include <map>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "response_log.h"
#include "tokenbench/client/http2_session.h"

namespace {

using tokenbench::client::Http2Session;
using tokenbench::client::Http2Stream;

std::string read_all(std::string_view reply, tokenbench::fuzz::Splitter* splitter) {
  Http2Session session(100);
  const std::string body = R"({"messages":[]})";
  const std::vector<Http2Session::Header> headers{{":method", "POST"},
                                                  {":scheme", "http"},
                                                  {":authority", "127.0.0.1"},
                                                  {":path", "/v1/chat/completions"}};
  tokenbench::fuzz::ResponseLog seen[3];
  for (auto& s : seen) s.limit = 1 << 20;
  Http2Stream streams[3];
  std::string error;
  for (int i = 0; i < 3; ++i) {
    streams[i].sink = &seen[i];
    if (!session.submit(streams[i], headers, body, error)) tokenbench::fuzz::fail("submit");
  }
  std::string out;
  session.pull_output(out);
  std::map<const Http2Stream*, int> closed;
  std::vector<Http2Stream*> ended;
  bool ok = true;
  while (!reply.empty() && ok) {
    const std::size_t n =
        splitter == nullptr ? reply.size() : std::min(splitter->next(), reply.size());
    ok = session.receive(reply.substr(0, n));
    reply.remove_prefix(n);
    out.clear();
    ok = ok && session.pull_output(out);
    session.take_closed(ended);
    for (const Http2Stream* s : ended) {
      if (++closed[s] > 1) tokenbench::fuzz::fail("a stream was reported closed twice");
    }
  }
  if (!ok) return "connection error";
  std::string log;
  for (int i = 0; i < 3; ++i) {
    log += seen[i].log +
           (closed.contains(&streams[i]) ? "closed " + std::to_string(streams[i].error_code) +
                                               (streams[i].remote_ended ? " ended" : "")
                                         : std::string("open")) +
           "\n";
  }
  return log;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tokenbench::fuzz::check_split_invariant(
      data, size, read_all, "connection error",
      "what the streams saw depends on how the bytes were split into reads");
  return 0;
}
