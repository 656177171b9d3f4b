#include "tokenbench/client/http2_session.h"

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <new>
#include <string>

namespace tokenbench::client {
namespace {

// h2load's default windows (-w 30 -W 30): flow control never holds a stream back.
constexpr std::int32_t kWindow = (1 << 30) - 1;

std::string_view view(const std::uint8_t* p, std::size_t n) {
  return {reinterpret_cast<const char*>(p), n};
}

std::string frame_name(int type) {
  static constexpr const char* kNames[] = {
      "DATA",         "HEADERS", "PRIORITY", "RST_STREAM",    "SETTINGS",
      "PUSH_PROMISE", "PING",    "GOAWAY",   "WINDOW_UPDATE", "CONTINUATION"};
  if (type >= 0 && type < static_cast<int>(std::size(kNames))) return kNames[type];
  return "type " + std::to_string(type);
}

}  // namespace

struct Http2Callbacks {
  static Http2Session& self(void* user) { return *static_cast<Http2Session*>(user); }
  static Http2Stream* stream(nghttp2_session* s, std::int32_t id) {
    return static_cast<Http2Stream*>(nghttp2_session_get_stream_user_data(s, id));
  }

  static int on_header(nghttp2_session* s, const nghttp2_frame* frame, const std::uint8_t* name,
                       std::size_t namelen, const std::uint8_t* value, std::size_t valuelen,
                       std::uint8_t, void*) {
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;
    Http2Stream* st = stream(s, frame->hd.stream_id);
    if (st == nullptr || st->stopped || st->final_headers) return 0;  // trailers are not read
    const std::string_view n = view(name, namelen);
    const std::string_view v = view(value, valuelen);
    if (n == ":status") {
      int code = 0;
      for (const char c : v) code = code * 10 + (c - '0');  // nghttp2 checked: three digits
      st->informational = code < 200;
      if (!st->informational) st->sink->on_status(code, 20);
      return 0;
    }
    if (!st->informational) st->sink->on_field(n, v);
    return 0;
  }

  static int on_frame_recv(nghttp2_session* s, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type == NGHTTP2_GOAWAY) {
      Http2Session& session = self(user);
      session.goaway_ = true;
      if (frame->goaway.error_code != NGHTTP2_NO_ERROR) {
        session.goaway_error_ = std::string("the server sent GOAWAY (") +
                                nghttp2_http2_strerror(frame->goaway.error_code) + ")";
      }
      return 0;
    }
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) return 0;
    Http2Stream* st = stream(s, frame->hd.stream_id);
    if (st == nullptr || st->stopped) return 0;
    if (frame->hd.type == NGHTTP2_HEADERS && !st->final_headers && !st->informational) {
      st->final_headers = true;
      st->sink->on_header_end();
    }
    if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) st->remote_ended = true;
    return 0;
  }

  static int on_data(nghttp2_session* s, std::uint8_t, std::int32_t id, const std::uint8_t* data,
                     std::size_t len, void* user) {
    Http2Stream* st = stream(s, id);
    if (st == nullptr || st->stopped) return 0;
    if (!st->sink->on_body(view(data, len))) {
      // The sink has recorded why; the stream ends here, reported at once.
      st->stopped = true;
      nghttp2_session_set_stream_user_data(s, id, nullptr);
      nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
      self(user).closed_.push_back(st);
    }
    return 0;
  }

  static int on_close(nghttp2_session* s, std::int32_t id, std::uint32_t error_code, void* user) {
    Http2Session& session = self(user);
    if (session.open_ > 0) --session.open_;
    if (Http2Stream* st = stream(s, id); st != nullptr) {
      st->error_code = error_code;
      session.closed_.push_back(st);
    }
    return 0;
  }

  static int on_error(nghttp2_session*, int, const char* msg, std::size_t len, void* user) {
    self(user).error_.assign(msg, len);
    self(user).reason_.assign(msg, len);
    return 0;
  }

  static int on_invalid_frame(nghttp2_session*, const nghttp2_frame* frame, int lib_error,
                              void* user) {
    Http2Session& session = self(user);
    session.bad_frame_ = frame->hd.type;
    if (session.reason_.empty()) session.reason_ = nghttp2_strerror(lib_error);
    return 0;
  }

  // A GOAWAY or RST_STREAM with an error code that this client sends: libnghttp2 refused what
  // the server sent. (The client's own cancels are RST_STREAM CANCEL.)
  static int on_frame_send(nghttp2_session* s, const nghttp2_frame* frame, void* user) {
    Http2Session& session = self(user);
    if (frame->hd.type == NGHTTP2_GOAWAY && frame->goaway.error_code != NGHTTP2_NO_ERROR) {
      const std::string_view debug = view(frame->goaway.opaque_data, frame->goaway.opaque_data_len);
      session.local_close_ =
          "the server sent " +
          Http2Session::describe_violation(
              frame->goaway.error_code, debug.empty() ? std::string_view(session.reason_) : debug,
              session.bad_frame_) +
          "; tokenbench closed the connection with " +
          Http2Session::error_name(frame->goaway.error_code);
      session.reason_.clear();
      session.bad_frame_ = -1;
      return 0;
    }
    if (frame->hd.type != NGHTTP2_RST_STREAM || frame->rst_stream.error_code == NGHTTP2_CANCEL ||
        frame->rst_stream.error_code == NGHTTP2_NO_ERROR) {
      return 0;
    }
    if (Http2Stream* st = stream(s, frame->hd.stream_id); st != nullptr) {
      st->local_error = "the server sent " +
                        Http2Session::describe_violation(frame->rst_stream.error_code,
                                                         session.reason_, session.bad_frame_) +
                        "; tokenbench reset the stream with " +
                        Http2Session::error_name(frame->rst_stream.error_code);
    }
    session.reason_.clear();
    session.bad_frame_ = -1;
    return 0;
  }

  static ssize_t read_body(nghttp2_session*, std::int32_t, std::uint8_t* buf, std::size_t length,
                           std::uint32_t* flags, nghttp2_data_source* source, void*) {
    auto* st = static_cast<Http2Stream*>(source->ptr);
    const std::size_t n = std::min(length, st->body->size() - st->body_sent);
    std::memcpy(buf, st->body->data() + st->body_sent, n);
    st->body_sent += n;
    if (st->body_sent == st->body->size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }
};

Http2Session::Http2Session(std::uint32_t max_streams) : max_streams_(std::max(1u, max_streams)) {
  nghttp2_session_callbacks* cb = nullptr;
  if (nghttp2_session_callbacks_new(&cb) != 0) throw std::bad_alloc();
  nghttp2_session_callbacks_set_on_header_callback(cb, &Http2Callbacks::on_header);
  nghttp2_session_callbacks_set_on_frame_recv_callback(cb, &Http2Callbacks::on_frame_recv);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, &Http2Callbacks::on_data);
  nghttp2_session_callbacks_set_on_stream_close_callback(cb, &Http2Callbacks::on_close);
  nghttp2_session_callbacks_set_error_callback2(cb, &Http2Callbacks::on_error);
  nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(cb,
                                                               &Http2Callbacks::on_invalid_frame);
  nghttp2_session_callbacks_set_on_frame_send_callback(cb, &Http2Callbacks::on_frame_send);
  const int rc = nghttp2_session_client_new(&session_, cb, this);
  nghttp2_session_callbacks_del(cb);
  if (rc != 0) throw std::bad_alloc();
  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, static_cast<std::uint32_t>(kWindow)},
  };
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings));
  nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, kWindow);
}

Http2Session::~Http2Session() { nghttp2_session_del(session_); }

bool Http2Session::submit(Http2Stream& stream, const std::vector<Header>& headers,
                          const std::string& body, std::string& error) {
  std::vector<nghttp2_nv> nva;
  nva.reserve(headers.size());
  for (const Header& h : headers) {
    nva.push_back({reinterpret_cast<std::uint8_t*>(const_cast<char*>(h.name.data())),
                   reinterpret_cast<std::uint8_t*>(const_cast<char*>(h.value.data())),
                   h.name.size(), h.value.size(), NGHTTP2_NV_FLAG_NONE});
  }
  stream.body = &body;
  stream.body_sent = 0;
  stream.final_headers = false;
  stream.remote_ended = false;
  stream.stopped = false;
  stream.informational = false;
  stream.error_code = 0;
  stream.local_error.clear();
  nghttp2_data_provider data{};
  data.source.ptr = &stream;
  data.read_callback = &Http2Callbacks::read_body;
  const std::int32_t id = nghttp2_submit_request(session_, nullptr, nva.data(), nva.size(),
                                                 body.empty() ? nullptr : &data, &stream);
  if (id < 0) {
    error = std::string("cannot open an HTTP/2 stream: ") + nghttp2_strerror(id);
    stream.id = -1;
    return false;
  }
  stream.id = id;
  ++open_;
  return true;
}

bool Http2Session::receive(std::string_view bytes) {
  constexpr std::string_view kHttp1 = "HTTP/1.";
  if (head_.size() < kHttp1.size()) {
    // An HTTP/1.x server's answer to the preface (it reads "PRI * HTTP/2.0" as a bad request):
    // read as frames, it begins a 4.7 MB frame, so it is never HTTP/2. (The bytes before the
    // seventh make no whole frame header: libnghttp2 only holds them.)
    head_.append(bytes.substr(0, kHttp1.size() - head_.size()));
    if (head_ == kHttp1) {
      http1_answer_ = true;
      error_ = "the server answered in HTTP/1.1";
      return false;
    }
  }
  const ssize_t n = nghttp2_session_mem_recv(
      session_, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  if (n < 0) {
    if (error_.empty()) error_ = nghttp2_strerror(static_cast<int>(n));
    return false;
  }
  return true;
}

bool Http2Session::pull_output(std::string& out) {
  while (true) {
    const std::uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session_, &data);
    if (n < 0) {
      error_ = nghttp2_strerror(static_cast<int>(n));
      return false;
    }
    if (n == 0) return true;
    out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
  }
}

void Http2Session::cancel(Http2Stream& stream) {
  closed_.erase(std::remove(closed_.begin(), closed_.end(), &stream), closed_.end());
  if (stream.id < 0) return;
  if (nghttp2_session_get_stream_user_data(session_, stream.id) == &stream) {
    nghttp2_session_set_stream_user_data(session_, stream.id, nullptr);
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream.id, NGHTTP2_CANCEL);
  }
  stream.id = -1;
}

void Http2Session::take_closed(std::vector<Http2Stream*>& out) {
  out.clear();
  out.swap(closed_);
}

bool Http2Session::refused(const Http2Stream& stream) {
  return stream.error_code == NGHTTP2_REFUSED_STREAM;
}

std::string Http2Session::error_name(std::uint32_t error_code) {
  return nghttp2_http2_strerror(error_code);
}

std::string Http2Session::describe_violation(std::uint32_t error_code, std::string_view reason,
                                             int frame_type) {
  const auto has = [reason](std::string_view words) {
    return reason.find(words) != std::string_view::npos;
  };
  std::string what;
  if (error_code == NGHTTP2_COMPRESSION_ERROR) {
    what = "a header block that does not decode (bad HPACK)";
  } else if (frame_type == NGHTTP2_PUSH_PROMISE || has("PUSH_PROMISE")) {
    what = "a PUSH_PROMISE, though tokenbench disables server push";
  } else if (has("padding")) {
    what = "a frame with bad padding";
  } else if (has("too large frame size")) {
    what = "a frame larger than the 16384-byte SETTINGS_MAX_FRAME_SIZE";
  } else if (error_code == NGHTTP2_FLOW_CONTROL_ERROR) {
    what = "more than HTTP/2 flow control allows";
  } else if (has("idle") || has("client received request") || has("invalid stream_id")) {
    what = "a frame on a stream tokenbench never opened";
  } else if (has("SETTINGS expected")) {
    what = "bytes that are not HTTP/2 (its first frame is not SETTINGS)";
  } else if (frame_type >= 0) {
    what = "a " + frame_name(frame_type) + " frame that breaks HTTP/2";
  } else {
    what = "frames that break HTTP/2";
  }
  if (!reason.empty()) what += " (nghttp2: " + std::string(reason) + ")";
  return what;
}

bool Http2Session::can_open() const {
  if (goaway_ || finished()) return false;
  const std::uint32_t remote =
      nghttp2_session_get_remote_settings(session_, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
  return open_ < std::min(max_streams_, remote);
}

bool Http2Session::finished() const {
  return nghttp2_session_want_read(session_) == 0 && nghttp2_session_want_write(session_) == 0;
}

}  // namespace tokenbench::client
