#include "tokenbench/records/records_io.h"

#include <fmt/format.h>

#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tokenbench/core/input_limits.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/records/chunk_codec.h"
#include "tokenbench/records/zstd_stream.h"

namespace tokenbench::records {
namespace {

using core::kNever;
using core::Nanos;
using nlohmann::json;

json stamp_to_json(Nanos ns) { return ns == kNever ? json(nullptr) : json(ns); }

// The largest token or byte count a record may hold: far above any real request, far below where
// sums over millions of records would overflow.
constexpr std::int64_t kMaxCount = 1'000'000'000'000;
// Stamps are nanoseconds since the run's origin: up to about 146 years, so that differences of
// two stamps never overflow.
constexpr std::int64_t kMaxStamp = std::int64_t{1} << 62;

// A JSON value as the record's text showed it (1e+30, -3, "x"), for error messages.
std::string shown(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

// An integer in [lo, hi]; anything else (a fraction, a number out of range, another type) throws
// naming `what`.
std::int64_t checked_integer(const json& value, const std::string& what, std::int64_t lo,
                             std::int64_t hi) {
  bool ok = false;
  std::int64_t v = 0;
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    ok = u <= static_cast<std::uint64_t>(hi);
    v = static_cast<std::int64_t>(u);
  } else if (value.is_number_integer()) {
    v = value.get<std::int64_t>();
    ok = true;
  }
  if (!ok || v < lo || v > hi) {
    throw std::runtime_error(
        fmt::format("{} is {}, not an integer from {} to {}", what, shown(value), lo, hi));
  }
  return v;
}

template <typename T>
void read_integer(const json& object, const char* key, T& out, std::int64_t lo, std::int64_t hi) {
  const auto it = object.find(key);
  if (it == object.end()) return;
  out = static_cast<T>(checked_integer(*it, key, lo, hi));
}

Nanos checked_stamp(const json& value, const std::string& what) {
  if (value.is_null()) return kNever;
  return checked_integer(value, what, kNever, kMaxStamp);
}

Nanos stamp_from_json(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end()) return kNever;
  return checked_stamp(*it, key);
}

// A string or bool field (integers go through read_integer, which checks their range).
template <typename T>
void read_field(const json& object, const char* key, T& out) {
  static_assert(!std::is_integral_v<T> || std::is_same_v<T, bool>, "use read_integer");
  const auto it = object.find(key);
  if (it == object.end()) return;
  try {
    out = it->get<T>();
  } catch (const json::exception&) {
    throw std::runtime_error(fmt::format("field '{}' has the wrong type", key));
  }
}

// A request or response id: a string of at most core::kMaxResponseIdBytes.
void read_id(const json& object, const char* key, std::string& out) {
  read_field(object, key, out);
  if (out.size() > core::kMaxResponseIdBytes) {
    throw std::runtime_error(fmt::format("{} has {} bytes, more than the {} a record keeps", key,
                                         out.size(), core::kMaxResponseIdBytes));
  }
}

// A duration the server reported, in ms: a number from 0 to 10^12.
double checked_ms(const json& value, const std::string& what) {
  if (!value.is_number() || !(value.get<double>() >= 0 && value.get<double>() <= 1e12)) {
    throw std::runtime_error(
        fmt::format("{} is {}, not a number of milliseconds from 0 to 10^12", what, shown(value)));
  }
  return value.get<double>();
}

void read_server_timings(const json& object, core::RequestRecord& r) {
  const auto it = object.find("server_timings");
  if (it == object.end() || it->is_null()) return;
  if (!it->is_object()) throw std::runtime_error("server_timings must be an object");
  core::ServerTimings t;
  const auto count = [&](const char* key, std::int64_t& out) {
    if (const auto v = it->find(key); v != it->end()) {
      out = checked_integer(*v, fmt::format("server_timings.{}", key), 0, kMaxCount);
    }
  };
  const auto ms = [&](const char* key, double& out) {
    if (const auto v = it->find(key); v != it->end()) {
      out = checked_ms(*v, fmt::format("server_timings.{}", key));
    }
  };
  count("cache_n", t.cache_n);
  count("prompt_n", t.prompt_n);
  count("predicted_n", t.predicted_n);
  ms("prompt_ms", t.prompt_ms);
  ms("predicted_ms", t.predicted_ms);
  r.server_timings = t;
}

// An agentic job's call (core::JobCallTag): {"n", "name", "call", "depth", "calls", "after",
// "delay_ms"}.
void read_job(const json& object, core::RequestRecord& r) {
  const auto it = object.find("job");
  if (it == object.end() || it->is_null()) return;
  if (!it->is_object()) throw std::runtime_error("job must be an object");
  core::JobCallTag& tag = r.job;
  read_integer(*it, "n", tag.job, 0, kMaxCount);
  read_id(*it, "name", tag.name);
  read_id(*it, "call", tag.call);
  read_integer(*it, "depth", tag.depth, 0, 1 << 20);
  read_integer(*it, "calls", tag.calls, 1, 1 << 20);
  if (const auto d = it->find("delay_ms"); d != it->end()) {
    tag.delay_ms = checked_ms(*d, "job.delay_ms");
  }
  if (const auto after = it->find("after"); after != it->end()) {
    if (!after->is_array() || after->size() > (1U << 20)) {
      throw std::runtime_error("job.after must be an array of call ids");
    }
    for (const auto& id : *after) {
      if (!id.is_string() || id.get_ref<const std::string&>().size() > core::kMaxResponseIdBytes) {
        throw std::runtime_error("job.after must be an array of call ids");
      }
      tag.after.push_back(id.get<std::string>());
    }
  }
  if (tag.job < 0 || tag.call.empty()) throw std::runtime_error("job needs \"n\" and \"call\"");
}

template <typename E>
E enum_from_json(const json& object, const char* key, E fallback,
                 std::optional<E> (*parse)(std::string_view)) {
  const auto it = object.find(key);
  if (it == object.end()) return fallback;
  if (!it->is_string()) throw std::runtime_error(fmt::format("field '{}' must be a string", key));
  const auto value = parse(it->get_ref<const std::string&>());
  if (!value) {
    throw std::runtime_error(
        fmt::format("field '{}' has unknown value '{}'", key, it->get_ref<const std::string&>()));
  }
  return *value;
}

// A request's moments happen in this order (the client may send later than scheduled, so `sent`
// before `scheduled` is allowed); a moment that never happened is not compared.
void check_stamp_order(const core::RequestRecord& r) {
  const auto after = [](Nanos later, const char* later_name, Nanos earlier,
                        const char* earlier_name) {
    if (later == kNever || earlier == kNever || later >= earlier) return;
    throw std::runtime_error(
        fmt::format("{} ({}) is before {} ({})", later_name, later, earlier_name, earlier));
  };
  after(r.first_token, "first_token_ns", r.sent, "sent_ns");
  after(r.last_token, "last_token_ns", r.first_token, "first_token_ns");
  after(r.first_reasoning, "first_reasoning_ns", r.first_token, "first_token_ns");
  after(r.first_answer, "first_answer_ns", r.first_token, "first_token_ns");
  after(r.done, "done_ns", r.sent, "sent_ns");
  after(r.done, "done_ns", r.last_token, "last_token_ns");
}

// The chunk stamps: "chunks" (chunk_codec.h) as written today, or the parallel arrays chunk_ns
// and chunk_tokens of files written before it.
std::vector<core::ChunkStamp> chunks_from_json(const json& o, Nanos sent) {
  const auto packed = o.find("chunks");
  if (packed != o.end()) {
    if (o.contains("chunk_ns") || o.contains("chunk_tokens")) {
      throw std::runtime_error("a record has both chunks and chunk_ns/chunk_tokens");
    }
    if (!packed->is_string()) throw std::runtime_error("chunks must be a string");
    return chunk_stamps_from_field(packed->get_ref<const std::string&>(), sent);
  }
  const json empty = json::array();
  const auto array_field = [&](const char* key) -> const json& {
    const auto it = o.find(key);
    if (it == o.end()) return empty;
    if (!it->is_array()) throw std::runtime_error(fmt::format("{} must be an array", key));
    return *it;
  };
  const json& chunk_ns = array_field("chunk_ns");
  const json& chunk_tokens = array_field("chunk_tokens");
  if (chunk_ns.size() != chunk_tokens.size()) {
    throw std::runtime_error(fmt::format("chunk_ns has {} entries but chunk_tokens has {}",
                                         chunk_ns.size(), chunk_tokens.size()));
  }
  std::vector<core::ChunkStamp> chunks;
  chunks.reserve(chunk_ns.size());
  for (std::size_t i = 0; i < chunk_ns.size(); ++i) {
    const Nanos t = checked_integer(chunk_ns[i], fmt::format("chunk_ns[{}]", i), 0, kMaxStamp);
    const auto tokens = static_cast<std::int32_t>(
        checked_integer(chunk_tokens[i], fmt::format("chunk_tokens[{}]", i), 0,
                        std::numeric_limits<std::int32_t>::max()));
    if (i > 0 && t < chunks.back().t) {
      throw std::runtime_error(fmt::format("chunk_ns[{}] ({}) is before chunk_ns[{}] ({})", i, t,
                                           i - 1, chunks.back().t));
    }
    chunks.push_back(core::ChunkStamp{t, tokens});
  }
  return chunks;
}

}  // namespace

json record_to_json(const core::RequestRecord& r) {
  // nlohmann::json keeps keys sorted; the field set, not the order, is the format.
  json out{
      {"id", r.id},
      {"phase", core::to_string(r.phase)},
      {"scheduled_ns", stamp_to_json(r.scheduled)},
      {"sent_ns", stamp_to_json(r.sent)},
      {"headers_ns", stamp_to_json(r.headers)},
      {"first_token_ns", stamp_to_json(r.first_token)},
      {"last_token_ns", stamp_to_json(r.last_token)},
      {"done_ns", stamp_to_json(r.done)},
      {"chunks", chunk_stamps_to_field(r.chunks, r.sent)},
      {"prompt_tokens", r.prompt_tokens},
      {"prompt_source", core::to_string(r.prompt_source)},
      {"output_tokens", r.output_tokens},
      {"output_source", core::to_string(r.output_source)},
      {"output_chars", r.output_chars},
      {"http_status", r.http_status},
      {"finish_reason", r.finish_reason},
  };
  // Written only when they differ from what a reader assumes (issue 27: bytes per token).
  if (!r.streamed) out["streamed"] = false;
  if (r.error != core::ErrorClass::kNone) out["error"] = core::to_string(r.error);
  if (!r.error_message.empty()) out["error_message"] = r.error_message;
  if (r.intended != kNever) out["intended_ns"] = r.intended;
  if (r.connected != kNever) out["connected_ns"] = r.connected;
  if (r.stamps != core::StampSource::kUser) out["stamps"] = core::to_string(r.stamps);
  if (r.first_reasoning != kNever) {  // else first_answer is first_token
    out["first_reasoning_ns"] = r.first_reasoning;
    out["first_answer_ns"] = stamp_to_json(r.first_answer);
  }
  if (r.reasoning_tokens >= 0) out["reasoning_tokens"] = r.reasoning_tokens;
  if (r.cached_tokens >= 0) out["cached_tokens"] = r.cached_tokens;
  if (r.cache_write_tokens >= 0) out["cache_write_tokens"] = r.cache_write_tokens;
  if (r.ideal_prompt_tokens >= 0) {
    out["ideal_cached_tokens"] = r.ideal_cached_tokens;
    out["ideal_prompt_tokens"] = r.ideal_prompt_tokens;
  }
  if (r.embeddings != 0) out["embeddings"] = r.embeddings;
  if (r.mix >= 0) out["mix"] = r.mix;
  if (r.chunk_usage) out["chunk_usage"] = true;
  if (r.read_late_share >= 0) out["read_late_share"] = r.read_late_share;
  if (r.session >= 0) {
    out["session"] = r.session;
    out["turn"] = r.turn;
  }
  if (r.job.job >= 0) {
    out["job"] = {{"n", r.job.job},
                  {"name", r.job.name},
                  {"call", r.job.call},
                  {"depth", r.job.depth},
                  {"calls", r.job.calls},
                  {"after", r.job.after},
                  {"delay_ms", r.job.delay_ms}};
  }
  if (r.tokenizer_output_tokens >= 0) out["tokenizer_output_tokens"] = r.tokenizer_output_tokens;
  if (r.endpoint != 0) out["endpoint"] = r.endpoint;
  if (r.attempt != 0) out["attempt"] = r.attempt;
  if (r.in_flight >= 0) out["in_flight"] = r.in_flight;
  if (r.retried) out["retried"] = true;
  if (r.nonstream_sample) out["nonstream_sample"] = true;
  if (!r.request_id.empty()) out["request_id"] = r.request_id;
  if (!r.response_id.empty()) out["response_id"] = r.response_id;
  const auto text = [](const std::string& s) {
    return json::parse(json(s).dump(-1, ' ', false, json::error_handler_t::replace));
  };
  if (!r.prompt_text.empty()) out["prompt_text"] = text(r.prompt_text);
  if (!r.output_text.empty()) out["output_text"] = text(r.output_text);
  if (r.text_truncated) out["text_truncated"] = true;
  if (r.text_dropped) out["text_dropped"] = true;
  if (r.server_timings) {
    const core::ServerTimings& t = *r.server_timings;
    out["server_timings"] = {{"cache_n", t.cache_n},
                             {"prompt_n", t.prompt_n},
                             {"prompt_ms", t.prompt_ms},
                             {"predicted_n", t.predicted_n},
                             {"predicted_ms", t.predicted_ms}};
  }
  return out;
}

namespace {

std::string json_string(const std::string& s) {
  return json(s).dump(-1, ' ', false, json::error_handler_t::replace);
}

// record_to_json's "job", keys in its (sorted) order.
template <typename Out>
void write_job(Out it, const core::JobCallTag& job) {
  fmt::format_to(it, ",\"job\":{{\"after\":[");
  for (std::size_t i = 0; i < job.after.size(); ++i) {
    fmt::format_to(it, "{}{}", i == 0 ? "" : ",", json_string(job.after[i]));
  }
  fmt::format_to(
      it, "],\"call\":{},\"calls\":{},\"delay_ms\":{},\"depth\":{},\"n\":{},\"name\":{}}}",
      json_string(job.call), job.calls, job.delay_ms, job.depth, job.job, json_string(job.name));
}

}  // namespace

std::string record_to_jsonl_line(const core::RequestRecord& record) {
  // Written directly rather than through a json object: the recorder does this for every request
  // while the run is in flight, and a 256-chunk record built as a json tree cost several times
  // more than the formatting itself. The fields are those of record_to_json.
  fmt::memory_buffer out;
  auto it = std::back_inserter(out);
  auto stamp = [&](const char* key, Nanos ns) {
    if (ns == kNever) {
      fmt::format_to(it, ",\"{}\":null", key);
    } else {
      fmt::format_to(it, ",\"{}\":{}", key, ns);
    }
  };
  // Strings from the server are escaped by nlohmann::json; invalid UTF-8 is replaced rather than
  // throwing mid-run.
  auto text = [&](const char* key, const std::string& value) {
    fmt::format_to(it, ",\"{}\":{}", key,
                   json(value).dump(-1, ' ', false, json::error_handler_t::replace));
  };
  fmt::format_to(it, "{{\"id\":{},\"phase\":\"{}\"", record.id, core::to_string(record.phase));
  if (!record.streamed) fmt::format_to(it, ",\"streamed\":false");
  stamp("scheduled_ns", record.scheduled);
  stamp("sent_ns", record.sent);
  stamp("headers_ns", record.headers);
  stamp("first_token_ns", record.first_token);
  stamp("last_token_ns", record.last_token);
  stamp("done_ns", record.done);
  // Base64 needs no JSON escaping.
  fmt::format_to(it, ",\"chunks\":\"{}\"", chunk_stamps_to_field(record.chunks, record.sent));
  fmt::format_to(it,
                 ",\"prompt_tokens\":{},\"prompt_source\":\"{}\",\"output_tokens\":{},"
                 "\"output_source\":\"{}\",\"output_chars\":{},\"http_status\":{}",
                 record.prompt_tokens, core::to_string(record.prompt_source), record.output_tokens,
                 core::to_string(record.output_source), record.output_chars, record.http_status);
  if (record.error != core::ErrorClass::kNone) {
    fmt::format_to(it, ",\"error\":\"{}\"", core::to_string(record.error));
  }
  if (!record.error_message.empty()) text("error_message", record.error_message);
  text("finish_reason", record.finish_reason);
  if (record.intended != kNever) fmt::format_to(it, ",\"intended_ns\":{}", record.intended);
  if (record.connected != kNever) fmt::format_to(it, ",\"connected_ns\":{}", record.connected);
  if (record.stamps != core::StampSource::kUser) {
    fmt::format_to(it, ",\"stamps\":\"{}\"", core::to_string(record.stamps));
  }
  if (record.first_reasoning != kNever) {  // else first_answer is first_token
    stamp("first_reasoning_ns", record.first_reasoning);
    stamp("first_answer_ns", record.first_answer);
  }
  if (record.reasoning_tokens >= 0) {
    fmt::format_to(it, ",\"reasoning_tokens\":{}", record.reasoning_tokens);
  }
  if (record.cached_tokens >= 0) {
    fmt::format_to(it, ",\"cached_tokens\":{}", record.cached_tokens);
  }
  if (record.cache_write_tokens >= 0) {
    fmt::format_to(it, ",\"cache_write_tokens\":{}", record.cache_write_tokens);
  }
  if (record.ideal_prompt_tokens >= 0) {
    fmt::format_to(it, ",\"ideal_cached_tokens\":{},\"ideal_prompt_tokens\":{}",
                   record.ideal_cached_tokens, record.ideal_prompt_tokens);
  }
  if (record.embeddings != 0) fmt::format_to(it, ",\"embeddings\":{}", record.embeddings);
  if (record.mix >= 0) fmt::format_to(it, ",\"mix\":{}", record.mix);
  if (record.chunk_usage) fmt::format_to(it, ",\"chunk_usage\":true");
  if (record.read_late_share >= 0) {
    fmt::format_to(it, ",\"read_late_share\":{}", record.read_late_share);
  }
  if (record.session >= 0) {
    fmt::format_to(it, ",\"session\":{},\"turn\":{}", record.session, record.turn);
  }
  if (record.job.job >= 0) write_job(it, record.job);
  if (record.tokenizer_output_tokens >= 0) {
    fmt::format_to(it, ",\"tokenizer_output_tokens\":{}", record.tokenizer_output_tokens);
  }
  if (record.endpoint != 0) fmt::format_to(it, ",\"endpoint\":{}", record.endpoint);
  if (record.attempt != 0) fmt::format_to(it, ",\"attempt\":{}", record.attempt);
  if (record.in_flight >= 0) fmt::format_to(it, ",\"in_flight\":{}", record.in_flight);
  if (record.retried) fmt::format_to(it, ",\"retried\":true");
  if (record.nonstream_sample) fmt::format_to(it, ",\"nonstream_sample\":true");
  if (!record.request_id.empty()) text("request_id", record.request_id);
  if (!record.response_id.empty()) text("response_id", record.response_id);
  // --save-detailed's texts (the recorder leaves them empty otherwise).
  if (!record.prompt_text.empty()) text("prompt_text", record.prompt_text);
  if (!record.output_text.empty()) text("output_text", record.output_text);
  if (record.text_truncated) fmt::format_to(it, ",\"text_truncated\":true");
  if (record.text_dropped) fmt::format_to(it, ",\"text_dropped\":true");
  if (record.server_timings) {
    const core::ServerTimings& t = *record.server_timings;
    fmt::format_to(it,
                   ",\"server_timings\":{{\"cache_n\":{},\"predicted_ms\":{},\"predicted_n\":{},"
                   "\"prompt_ms\":{},\"prompt_n\":{}}}",
                   t.cache_n, t.predicted_ms, t.predicted_n, t.prompt_ms, t.prompt_n);
  }
  out.push_back('}');
  out.push_back('\n');
  return fmt::to_string(out);
}

core::RequestRecord record_from_json(const json& o) {
  if (!o.is_object()) throw std::runtime_error("a record must be a JSON object");
  core::RequestRecord r;
  if (const auto id = o.find("id"); id != o.end()) {
    if (!id->is_number_unsigned() && !(id->is_number_integer() && id->get<std::int64_t>() >= 0)) {
      throw std::runtime_error(fmt::format("id is {}, not a non-negative integer", shown(*id)));
    }
    r.id = id->get<std::uint64_t>();
  }
  r.phase = enum_from_json(o, "phase", r.phase, &core::phase_from_string);
  read_field(o, "streamed", r.streamed);
  read_field(o, "chunk_usage", r.chunk_usage);
  if (const auto late = o.find("read_late_share"); late != o.end() && !late->is_null()) {
    if (!late->is_number() || !(late->get<double>() >= 0 && late->get<double>() <= 1)) {
      throw std::runtime_error(
          fmt::format("read_late_share is {}, not a share from 0 to 1", shown(*late)));
    }
    r.read_late_share = late->get<double>();
  }
  read_integer(o, "endpoint", r.endpoint, 0, std::numeric_limits<std::uint32_t>::max());
  read_integer(o, "attempt", r.attempt, 0, 1000);
  read_integer(o, "in_flight", r.in_flight, 0, std::numeric_limits<std::int32_t>::max());
  read_field(o, "retried", r.retried);
  r.intended = stamp_from_json(o, "intended_ns");
  read_field(o, "nonstream_sample", r.nonstream_sample);
  r.scheduled = stamp_from_json(o, "scheduled_ns");
  r.sent = stamp_from_json(o, "sent_ns");
  r.headers = stamp_from_json(o, "headers_ns");
  r.first_token = stamp_from_json(o, "first_token_ns");
  r.last_token = stamp_from_json(o, "last_token_ns");
  r.done = stamp_from_json(o, "done_ns");
  r.first_reasoning = stamp_from_json(o, "first_reasoning_ns");
  r.first_answer =
      r.first_reasoning != kNever ? stamp_from_json(o, "first_answer_ns") : r.first_token;

  r.connected = stamp_from_json(o, "connected_ns");
  r.stamps = enum_from_json(o, "stamps", r.stamps, &core::stamp_source_from_string);
  r.chunks = chunks_from_json(o, r.sent);

  read_integer(o, "prompt_tokens", r.prompt_tokens, 0, kMaxCount);
  r.prompt_source =
      enum_from_json(o, "prompt_source", r.prompt_source, &core::token_source_from_string);
  read_integer(o, "output_tokens", r.output_tokens, 0, kMaxCount);
  read_integer(o, "tokenizer_output_tokens", r.tokenizer_output_tokens, -1, kMaxCount);
  r.output_source =
      enum_from_json(o, "output_source", r.output_source, &core::token_source_from_string);
  read_integer(o, "output_chars", r.output_chars, 0, kMaxCount);
  read_integer(o, "reasoning_tokens", r.reasoning_tokens, -1, kMaxCount);
  read_integer(o, "cached_tokens", r.cached_tokens, -1, kMaxCount);
  read_integer(o, "cache_write_tokens", r.cache_write_tokens, -1, kMaxCount);
  read_integer(o, "ideal_cached_tokens", r.ideal_cached_tokens, -1, kMaxCount);
  read_integer(o, "ideal_prompt_tokens", r.ideal_prompt_tokens, -1, kMaxCount);
  read_integer(o, "embeddings", r.embeddings, 0, 1 << 20);
  read_integer(o, "mix", r.mix, -1, 1 << 16);
  read_integer(o, "session", r.session, -1, kMaxCount);
  read_integer(o, "turn", r.turn, -1, 1 << 20);
  read_integer(o, "http_status", r.http_status, 0, 999);
  r.error = enum_from_json(o, "error", r.error, &core::error_class_from_string);
  read_field(o, "error_message", r.error_message);
  read_field(o, "finish_reason", r.finish_reason);
  read_id(o, "request_id", r.request_id);
  read_id(o, "response_id", r.response_id);
  read_server_timings(o, r);
  read_job(o, r);
  check_stamp_order(r);
  return r;
}

core::RequestRecord record_from_jsonl_line(std::string_view line) {
  // Refused before parsing: a record is 2 deep; nlohmann's copies recurse once per level.
  if (std::string deep = core::json_depth_error(line); !deep.empty()) {
    throw std::runtime_error(deep);
  }
  json object;
  try {
    object = json::parse(line.begin(), line.end());
  } catch (const json::exception&) {
    // parse_error, and out_of_range for a number too large for a double (1e5000).
    throw RecordNotJson();
  }
  return record_from_json(object);
}

}  // namespace tokenbench::records
