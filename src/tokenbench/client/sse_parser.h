#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace tokenbench::client {

/// Incremental Server-Sent Events framer (the WHATWG event-stream format as LLM servers use it).
///
/// Bytes may arrive split at any offset; feed() keeps the partial line between calls. Lines end
/// with LF, CRLF or CR. An event ends at a blank line; its `data:` lines are joined with '\n'.
/// Comment lines (starting with ':') are keep-alives and are skipped; `event:`, `id:` and `retry:`
/// fields are ignored. An event without data lines is not reported. "data:" with or without the
/// following space is accepted.
///
/// An event (or an unfinished line) larger than max_event_bytes() stops the parser: nothing more
/// is buffered or reported, and overflowed() turns true. A server that never ends a line cannot
/// grow the client's memory past that bound.
///
/// Not thread-safe: one parser per stream, owned by the thread that owns the stream. Buffers are
/// reused across events, so a warm parser does not allocate per event.
class SseParser {
 public:
  static constexpr std::size_t kDefaultMaxEventBytes = 4 << 20;

  SseParser() {
    line_.reserve(512);
    data_.reserve(1024);
  }

  void set_max_event_bytes(std::size_t bytes) { max_event_bytes_ = bytes; }
  std::size_t max_event_bytes() const { return max_event_bytes_; }
  /// True once an event or line grew past max_event_bytes(); the rest of the stream is ignored.
  bool overflowed() const { return overflowed_; }

  /// Consumes `bytes`; calls `on_event(std::string_view data)` once for each completed event. The
  /// view is valid only during the call.
  template <typename OnEvent>
  void feed(std::string_view bytes, OnEvent&& on_event);

  /// At the end of a stream: reports a last event that was not followed by a blank line (its
  /// final line may also lack a line end), then forgets it.
  template <typename OnEvent>
  void finish(OnEvent&& on_event) {
    if (overflowed_) return;
    if (!line_.empty()) {
      std::string last;
      last.swap(line_);
      on_line(std::string_view(last), on_event);
    }
    if (has_data_) on_line(std::string_view(), on_event);
    skip_lf_ = false;
  }

  /// True when bytes of an unfinished line or event are buffered (a stream that ends here was cut).
  bool has_partial() const { return !line_.empty() || has_data_; }

  /// Forgets all buffered state, keeping the buffers' capacity.
  void reset() {
    line_.clear();
    data_.clear();
    has_data_ = false;
    skip_lf_ = false;
    overflowed_ = false;
  }

 private:
  template <typename OnEvent>
  void on_line(std::string_view line, OnEvent& on_event);

  std::string line_;  // an incomplete line carried over from the previous feed
  std::string data_;  // the data of the event being assembled
  bool has_data_ = false;
  bool skip_lf_ = false;  // the previous feed ended with CR: a leading LF belongs to it
  bool overflowed_ = false;
  std::size_t max_event_bytes_ = kDefaultMaxEventBytes;
};

template <typename OnEvent>
void SseParser::feed(std::string_view bytes, OnEvent&& on_event) {
  if (overflowed_) return;
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  if (skip_lf_ && p < end) {
    if (*p == '\n') ++p;
    skip_lf_ = false;
  }
  while (p < end) {
    // Find the next CR or LF: two vectorised memchr scans beat a byte loop, and most streams
    // have no CR at all.
    const auto rest = static_cast<std::size_t>(end - p);
    const char* eol = static_cast<const char*>(std::memchr(p, '\n', rest));
    if (eol == nullptr) eol = end;
    if (const void* cr = std::memchr(p, '\r', static_cast<std::size_t>(eol - p))) {
      eol = static_cast<const char*>(cr);
    }
    const auto length = static_cast<std::size_t>(eol - p);
    if (line_.size() + length > max_event_bytes_) {
      overflowed_ = true;
      return;
    }
    if (eol == end) {
      line_.append(p, length);
      return;
    }
    if (line_.empty()) {
      on_line(std::string_view(p, length), on_event);
    } else {
      line_.append(p, length);
      on_line(std::string_view(line_), on_event);
      line_.clear();
    }
    if (*eol == '\r') {
      if (eol + 1 == end) {
        skip_lf_ = true;
        return;
      }
      if (eol[1] == '\n') ++eol;
    }
    p = eol + 1;
    if (overflowed_) return;
  }
}

template <typename OnEvent>
void SseParser::on_line(std::string_view line, OnEvent& on_event) {
  if (line.empty()) {
    if (has_data_) {
      on_event(std::string_view(data_));
      data_.clear();
      has_data_ = false;
    }
    return;
  }
  if (line.front() == ':') return;  // comment / keep-alive
  const std::size_t colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  if (field != "data") return;
  std::string_view value;
  if (colon != std::string_view::npos) {
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (data_.size() + value.size() + 1 > max_event_bytes_) {
    overflowed_ = true;
    return;
  }
  if (has_data_) data_.push_back('\n');
  data_.append(value);
  has_data_ = true;
}

}  // namespace tokenbench::client
