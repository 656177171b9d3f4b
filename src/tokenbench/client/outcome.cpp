#include "tokenbench/client/outcome.h"

#include <string>

#include "tokenbench/client/api_adapter.h"
#include "tokenbench/client/error_classify.h"
#include "tokenbench/core/approx_tokens.h"
#include "tokenbench/core/text.h"

namespace tokenbench::client {

void settle_tokens(const ReplyUsage& usage, core::RequestRecord& rec) {
  std::int64_t completion = usage.completion;
  if (completion > usage.completion_limit) {
    if (rec.error == core::ErrorClass::kNone || rec.error == core::ErrorClass::kEmptyReply) {
      rec.error = core::ErrorClass::kProtocol;
      rec.error_message = "the server's usage claims " + std::to_string(completion) +
                          " completion tokens for max_tokens " + std::to_string(usage.max_tokens) +
                          " (at most " + std::to_string(usage.completion_limit) + " believed)";
    }
    completion = -1;  // not believed: the chunks count instead
  }

  if (completion >= 0) {
    rec.output_tokens = completion;
    rec.output_source = core::TokenSource::kUsage;
    if (!rec.chunk_usage && completion > static_cast<std::int64_t>(rec.chunks.size())) {
      const auto tokens = distribute_tokens(rec.chunk_text_bytes, completion);
      for (std::size_t i = 0; i < tokens.size(); ++i) rec.chunks[i].tokens = tokens[i];
    }
  } else if (rec.streamed) {
    rec.output_tokens = static_cast<std::int64_t>(rec.chunks.size());
    rec.output_source = core::TokenSource::kChunks;
  }
  // Input counts: a local tokenizer's count of the prompt wins (it is what the user asked to
  // measure with), then the server's usage, then the workload's own figure.
  if (usage.prompt >= 0 && usage.input_source != core::TokenSource::kTokenizer) {
    rec.prompt_tokens = usage.prompt;
    rec.prompt_source = core::TokenSource::kUsage;
  } else {
    rec.prompt_tokens = usage.input_tokens;
    rec.prompt_source = usage.input_source;
  }
}

namespace {

// A whole JSON reply (--no-stream, or a server that ignored "stream"): its text and counts, or
// why it is not a reply. False when it is settled (a failure, or embeddings) and no output check
// follows.
bool classify_whole_reply(const ReplyFacts& reply, ApiAdapter& adapter, core::RequestRecord& rec,
                          ReplyUsage& usage) {
  rec.streamed = false;
  const ApiEvent ev = adapter.parse_response(reply.body);
  if (ev.kind == ApiEvent::Kind::kMalformed) {
    rec.error = core::ErrorClass::kMalformed;
    rec.error_message.assign(ev.error_message);
    return false;
  }
  if (ev.kind == ApiEvent::Kind::kError) {
    rec.error = core::ErrorClass::kServerError;
    rec.error_message.assign(ev.error_message);
    return false;
  }
  rec.output_chars = ev.content_bytes;
  rec.embeddings = ev.embeddings;
  if (ev.reasoning_tokens >= 0) rec.reasoning_tokens = ev.reasoning_tokens;
  if (ev.cached_tokens >= 0) rec.cached_tokens = ev.cached_tokens;
  if (ev.cache_write_tokens >= 0) rec.cache_write_tokens = ev.cache_write_tokens;
  if (core::scores_inputs(reply.api)) {
    // A rerank's top_n may cut its results; a vector or a score per input otherwise.
    if (ev.embeddings != reply.inputs) {
      rec.error = core::ErrorClass::kMalformed;
      rec.error_message =
          "the reply carried " + std::to_string(ev.embeddings) +
          (reply.api == core::ApiKind::kEmbeddings ? " embeddings for " : " scores for ") +
          std::to_string(reply.inputs) +
          (reply.api == core::ApiKind::kEmbeddings ? " inputs" : " documents");
    } else if (ev.prompt_tokens >= 0) {
      usage.prompt = ev.prompt_tokens;
    }
    return false;
  }
  if (ev.completion_tokens < 0) {
    // No usage and no stream to count chunks in: the documented approximation, until a
    // tokenizer (if given) recounts the text.
    rec.output_tokens = core::approx_token_count(ev.reasoning_text) +
                        core::approx_token_count(ev.content_text) +
                        core::approx_token_count(ev.tool_text);
    rec.output_source = core::TokenSource::kApproximate;
  }
  if (reply.keep_text) {
    rec.output_text.assign(ev.reasoning_text);
    rec.output_text.append(ev.content_text);
    rec.output_text.append(ev.tool_text);
  }
  rec.finish_reason.assign(ev.finish_reason);
  if (reply.keep_answer) rec.answer_text.assign(ev.content_text);
  rec.response_id.assign(core::utf8_prefix(ev.response_id, core::kMaxResponseIdBytes));
  if (ev.has_timings) rec.server_timings = ev.timings;
  if (ev.prompt_tokens >= 0) usage.prompt = ev.prompt_tokens;
  if (ev.completion_tokens >= 0) usage.completion = ev.completion_tokens;
  return true;
}

}  // namespace

void classify_reply(const ReplyFacts& reply, ApiAdapter& adapter, core::RequestRecord& rec,
                    ReplyUsage& usage) {
  if (reply.transport != CURLE_OK) {
    classify_transport_error(reply.transport, reply.transport_error, !rec.chunks.empty(),
                             rec.headers != core::kNever, rec);
    return;
  }
  const std::string status = "HTTP " + std::to_string(reply.status);
  if (reply.status >= 300 && reply.status < 400) {
    rec.error = core::ErrorClass::kRedirect;
    rec.error_message =
        status + ": the URL redirects" +
        (reply.location.empty() ? std::string() : " to " + std::string(reply.location));
    return;
  }
  if (reply.status < 200 || reply.status >= 300) {
    classify_http_status(static_cast<int>(reply.status),
                         ApiAdapter::error_message_from_body(reply.body), rec);
    return;
  }
  if (reply.html) {
    rec.error = core::ErrorClass::kMalformed;
    rec.error_message = status + " with " + describe_html(reply.body) +
                        " instead of the API's reply: --base-url or --endpoint points at a web "
                        "page (a UI, a login page or a proxy)";
    return;
  }
  if (reply.event_stream) {
    if (!reply.done_seen && rec.finish_reason.empty()) {
      rec.error = core::ErrorClass::kStreamCut;
      rec.error_message =
          "the stream ended before its end ([DONE], message_stop or response.completed)";
      return;
    }
  } else {
    if (!classify_whole_reply(reply, adapter, rec, usage)) return;
  }
  // A 200 that carried no output at all is not a completed request: counting it would inflate
  // request throughput with answers nobody got.
  if (rec.output_chars == 0 && usage.completion <= 0) {
    rec.error = core::ErrorClass::kEmptyReply;
    rec.error_message = reply.event_stream ? "the stream carried no content, reasoning or tool call"
                                           : "the reply carried no content, reasoning or tool call";
    if (!rec.finish_reason.empty()) {
      rec.error_message += " (finish_reason " + rec.finish_reason + ")";
    }
  }
}

}  // namespace tokenbench::client
