// What a Worker does with a reply as its transport reports it (worker.h, TransferHost): header
// lines, body bytes and stream events into the record, the reply's limits, and the end of a
// transfer, classified by classify_reply (client/outcome.h).

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <ctime>
#include <string>

#include "tokenbench/client/outcome.h"
#include "tokenbench/client/worker.h"
#include "tokenbench/core/text.h"

namespace tokenbench::client {
namespace {

constexpr std::size_t kMaxErrorBody = 64 * 1024;
bool header_is(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line[name.size()] != ':') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  }
  return true;
}

// A header line's value, without the name, surrounding blanks and the line end.
std::string_view header_value(std::string_view line) {
  line.remove_prefix(line.find(':') + 1);
  const std::size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {};
  line.remove_prefix(start);
  return line.substr(0, line.find_last_not_of(" \t\r\n") + 1);
}

std::string mib_text(std::int64_t bytes) {
  return bytes % (1 << 20) == 0 ? std::to_string(bytes >> 20) + " MiB"
                                : std::to_string(bytes) + " bytes";
}

}  // namespace

bool Worker::header_line(Transfer& transfer, std::string_view line, core::Nanos now) {
  Transfer* t = &transfer;
  t->last_activity = now;
  if (!count_reply_bytes(t, line.size())) return false;
  if (t->rec.headers == core::kNever && t->reply_bytes > kMaxHeaderBytes) {
    t->abort(core::ErrorClass::kProtocol, "the response headers exceed " +
                                              std::to_string(kMaxHeaderBytes / 1024) +
                                              " KiB: a broken server or proxy");
    return false;
  }
  if (line.rfind("HTTP/", 0) == 0) {
    // A new status line (e.g. after "100 Continue"): forget earlier headers.
    t->event_stream = t->stream;
    t->html = false;
    t->rec.headers = core::kNever;
  } else if (line == "\r\n" || line == "\n") {
    t->rec.headers = now;
  } else {
    return header_field(t, line);
  }
  return true;
}

bool Worker::header_field(Transfer* t, std::string_view line) {
  if (header_is(line, "content-type")) {
    // A streamed request gets SSE unless the server says it sent one JSON document instead
    // (it ignored "stream"), or a web page; some gateways label SSE text/plain or not at all.
    t->html = line.find("text/html") != std::string_view::npos;
    t->event_stream =
        t->stream && !t->html && line.find("application/json") == std::string_view::npos;
  } else if (header_is(line, "retry-after")) {
    const std::string value(header_value(line));
    char* end = nullptr;
    const double seconds = std::strtod(value.c_str(), &end);
    if (end != value.c_str() && *end == '\0' && seconds >= 0) {
      t->retry_after_s = seconds;
    } else if (const time_t at = curl_getdate(value.c_str(), nullptr); at > 0) {
      t->retry_after_s = std::max(0.0, std::difftime(at, std::time(nullptr)));
    }
  } else if (header_is(line, "location")) {
    t->location.assign(header_value(line).substr(0, 2048));
  } else if (header_is(line, "content-encoding") || header_is(line, "transfer-encoding")) {
    // Only identity was asked for (and chunked framing, which libcurl removes).
    const std::string_view value = header_value(line);
    std::string lower(value);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!lower.empty() && lower != "identity" && lower != "chunked") {
      t->abort(
          core::ErrorClass::kProtocol,
          "the server sent a body encoded '" + std::string(value.substr(0, 40)) +
              "' although the request asked for none (Accept-Encoding: identity); it is refused "
              "unread, since a compressed stream is buffered and moves every token stamp");
      return false;
    }
  }
  return true;
}

bool Worker::count_reply_bytes(Transfer* t, std::size_t len) {
  t->reply_bytes += static_cast<std::int64_t>(len);
  if (t->reply_bytes <= t->limits.bytes) return true;
  t->abort(core::ErrorClass::kProtocol,
           "the reply exceeded " + mib_text(t->limits.bytes) + " for max_tokens " +
               std::to_string(t->spec->max_tokens) +
               ": a server that does not stop (--max-reply-bytes raises the bound)");
  return false;
}

bool Worker::body_bytes(Transfer& transfer, std::string_view bytes, core::Nanos now) {
  Transfer* t = &transfer;
  Worker* self = this;
  const char* data = bytes.data();
  const std::size_t len = bytes.size();
  t->last_byte = now;
  t->last_activity = now;
  if (!count_reply_bytes(t, len)) return false;
  const bool success = t->status >= 200 && t->status < 300;
  if (success && t->event_stream) {
    t->sse.feed(std::string_view(data, len), [t, self, now](std::string_view event) {
      if (!t->aborted) self->on_event(t, event, now);
    });
    if (t->sse.overflowed() && !t->aborted) {
      t->abort(core::ErrorClass::kMalformed,
               "an SSE event or line exceeded " +
                   mib_text(static_cast<std::int64_t>(t->sse.max_event_bytes())) +
                   " (--max-event-bytes): a broken server or the wrong URL");
    }
    return !t->aborted;
  }
  if (success && !t->html) {
    if (static_cast<std::int64_t>(t->body.size() + len) > t->limits.body_bytes) {
      t->abort(core::ErrorClass::kProtocol,
               "the reply body exceeded " + mib_text(t->limits.body_bytes) + " for max_tokens " +
                   std::to_string(t->spec->max_tokens) + " (--max-reply-bytes raises the bound)");
      return false;
    }
    t->body.append(data, len);
  } else if (t->body.size() < kMaxErrorBody) {
    t->body.append(data, std::min(len, kMaxErrorBody - t->body.size()));
  }
  return true;
}

void Worker::on_event(Transfer* t, std::string_view data, core::Nanos now) {
  ApiEvent ev = adapter_->parse_event(data);
  if (ev.cumulative_text) {
    // The whole text so far: this event carried what follows the text already counted.
    const auto seen = static_cast<std::size_t>(std::max<std::int64_t>(t->rec.output_chars, 0));
    ev.content_text = seen < ev.content_text.size() ? ev.content_text.substr(seen) : "";
    ev.content_bytes = static_cast<std::int64_t>(ev.content_text.size());
  }
  switch (ev.kind) {
    case ApiEvent::Kind::kDone:
      t->done_seen = true;
      return;
    case ApiEvent::Kind::kError:
      t->abort(core::ErrorClass::kServerError, ev.error_message);
      return;
    case ApiEvent::Kind::kMalformed:
      t->abort(core::ErrorClass::kMalformed, ev.error_message);
      return;
    case ApiEvent::Kind::kData:
      break;
  }
  if (ev.last) t->done_seen = true;
  if (ev.content_bytes > 0) {
    on_content(t, ev, now);
    // Usage in a content chunk (continuous_usage_stats): the running count says exactly how
    // many tokens this chunk carried.
    if (ev.completion_tokens >= 0 && !t->rec.chunks.empty() && !t->aborted) {
      const std::int64_t before = std::max<std::int64_t>(t->usage_completion, 0);
      t->rec.chunks.back().tokens = static_cast<std::int32_t>(
          std::clamp<std::int64_t>(ev.completion_tokens - before, 0, INT32_MAX));
      t->rec.chunk_usage = true;
    }
  }
  if (!ev.finish_reason.empty()) t->rec.finish_reason.assign(ev.finish_reason);
  if (ev.prompt_tokens >= 0) t->usage_prompt = ev.prompt_tokens;
  if (ev.completion_tokens >= 0) t->usage_completion = ev.completion_tokens;
  if (ev.reasoning_tokens >= 0) t->rec.reasoning_tokens = ev.reasoning_tokens;
  if (ev.cached_tokens >= 0) t->rec.cached_tokens = ev.cached_tokens;
  if (ev.cache_write_tokens >= 0) t->rec.cache_write_tokens = ev.cache_write_tokens;
  if (ev.has_timings) t->rec.server_timings = ev.timings;
  if (t->rec.response_id.empty() && !ev.response_id.empty()) {
    t->rec.response_id.assign(core::utf8_prefix(ev.response_id, core::kMaxResponseIdBytes));
  }
}

void Worker::note_read(core::Nanos lag) {
  read_lag_ = lag;
  if (lag == core::kNever || !measuring_) return;
  read_lag_log_.total.add(lag);
  read_lag_window_.add(lag);
}

void Worker::on_content(Transfer* t, const ApiEvent& ev, core::Nanos now) {
  if (static_cast<std::int64_t>(t->rec.chunks.size()) >= t->limits.chunks) {
    t->abort(core::ErrorClass::kProtocol,
             "the stream sent more than " + std::to_string(t->limits.chunks) +
                 " content chunks for max_tokens " + std::to_string(t->spec->max_tokens) +
                 ": a server that does not stop");
    return;
  }
  if (t->rec.first_token == core::kNever) t->rec.first_token = now;
  if (t->rec.first_reasoning == core::kNever && !ev.reasoning_text.empty()) {
    t->rec.first_reasoning = now;
  }
  if (t->rec.first_answer == core::kNever && (!ev.content_text.empty() || !ev.tool_text.empty())) {
    t->rec.first_answer = now;
  }
  t->rec.last_token = now;
  t->rec.chunks.push_back(core::ChunkStamp{now, 1});
  if (read_lag_ != core::kNever && t->rec.chunks.size() >= 2) {
    // Chunks from the second on are judged (docs/METRICS.md, "Read lag"). This one is late when
    // read more than one ITL (the mean gap from the first chunk to this one) after the kernel
    // received it; the one before it, when it came in this same read (one kernel stamp): it
    // waited unread at least until this one arrived, a token's gap later.
    const std::size_t k = t->rec.chunks.size() - 1;
    ++t->chunks_judged;
    if (k >= 2 && !t->last_chunk_late && t->rec.chunks[k - 1].t == now) ++t->chunks_late;
    t->last_chunk_late = read_lag_ * static_cast<core::Nanos>(k) > now - t->rec.chunks.front().t;
    if (t->last_chunk_late) ++t->chunks_late;
  }
  t->rec.chunk_text_bytes.push_back(
      static_cast<std::int32_t>(std::min<std::int64_t>(ev.content_bytes, INT32_MAX)));
  t->rec.output_chars += ev.content_bytes;
  if (keep_answers_) {
    if (!text_fits(t, t->rec.answer_text.size(), ev.content_text.size())) return;
    t->rec.answer_text.append(ev.content_text);
  }
  if (config_.keep_text) {
    if (!text_fits(t, t->rec.output_text.size(), static_cast<std::size_t>(ev.content_bytes))) {
      return;
    }
    t->rec.output_text.append(ev.reasoning_text);
    t->rec.output_text.append(ev.content_text);
    t->rec.output_text.append(ev.tool_text);
  }
}

bool Worker::text_fits(Transfer* t, std::size_t kept, std::size_t adding) {
  if (static_cast<std::int64_t>(kept + adding) <= t->limits.text_bytes) return true;
  t->abort(core::ErrorClass::kProtocol, "the reply's text exceeded " +
                                            mib_text(t->limits.text_bytes) + " for max_tokens " +
                                            std::to_string(t->spec->max_tokens));
  return false;
}

void Worker::finish(Transfer& transfer, CURLcode result) {
  Transfer* t = &transfer;
  t->transport->close(*t);
  core::RequestRecord& rec = t->rec;
  // A reply that ended cleanly is done when its last bytes arrived, not when this loop turn got
  // to it; any other end is stamped now.
  rec.done = result == CURLE_OK && t->last_byte != core::kNever ? t->last_byte : clock_.now();
  if (result == CURLE_OK && t->event_stream && !t->aborted) {
    // A last event not followed by a blank line is still an event.
    const core::Nanos at = rec.done;
    t->sse.finish([this, t, at](std::string_view event) {
      if (!t->aborted) on_event(t, event, at);
    });
  }
  const AttemptFacts facts = t->transport->facts(*t);
  if (facts.connected != core::kNever) rec.connected = facts.connected;
  rec.http_status = static_cast<int>(facts.status);

  if (t->chunks_judged > 0) {
    rec.read_late_share = static_cast<double>(t->chunks_late) / t->chunks_judged;
  }
  if (!t->aborted) classify(t, result, facts);
  ReplyUsage usage;
  usage.prompt = t->usage_prompt;
  usage.completion = t->usage_completion;
  usage.completion_limit = t->limits.usage_tokens;
  usage.max_tokens = t->spec->max_tokens;
  usage.input_tokens = t->spec->input_tokens;
  usage.input_source = t->spec->input_source;
  settle_tokens(usage, rec);
  release(t);
}

void Worker::classify(Transfer* t, CURLcode result, const AttemptFacts& facts) {
  ReplyFacts reply;
  reply.transport = result;
  reply.transport_error = facts.error;
  reply.status = facts.status;
  if (facts.status >= 300 && facts.status < 400) reply.location = facts.location;
  reply.body = t->body;
  reply.html = t->html;
  reply.event_stream = t->event_stream;
  reply.done_seen = t->done_seen;
  reply.api = config_.api;
  // Embeddings: a vector per input; rerank and score: a score per document (the query is not
  // one).
  const bool pairs = config_.api == core::ApiKind::kRerank || config_.api == core::ApiKind::kScore;
  reply.inputs = t->spec != nullptr
                     ? static_cast<std::int64_t>((pairs ? 0 : 1) + t->spec->more_inputs.size())
                     : 1;
  reply.keep_text = config_.keep_text;
  reply.keep_answer = keep_answers_;
  ReplyUsage usage;
  usage.prompt = t->usage_prompt;
  usage.completion = t->usage_completion;
  classify_reply(reply, *adapter_, t->rec, usage);
  t->usage_prompt = usage.prompt;
  t->usage_completion = usage.completion;
}

}  // namespace tokenbench::client
