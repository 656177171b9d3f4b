// core::validate_run: the checks across the options of one run that need no network and no file
// (config_check.h). Each message names the flags, as the CLI prints it.

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>

#include "tokenbench/core/config_check.h"
#include "tokenbench/core/json_parse.h"
#include "tokenbench/core/request_mix.h"
#include "tokenbench/core/secret_fields.h"
#include "tokenbench/core/text.h"

namespace tokenbench::core {
namespace {

bool is_dialogue_api(ApiKind api) {
  return api == ApiKind::kOpenAIChat || api == ApiKind::kAnthropicMessages ||
         api == ApiKind::kOpenAIResponses;
}

// The options that only some APIs take.
void check_api_options(const RunConfig& c) {
  if (c.max_tokens_field != "max_tokens" && c.max_tokens_field != "max_completion_tokens") {
    throw ConfigError("--max-tokens-field '" + c.max_tokens_field +
                      "' is not known: use max_tokens or max_completion_tokens");
  }
  if (c.max_tokens_field != "max_tokens" && c.api != ApiKind::kOpenAIChat &&
      c.api != ApiKind::kOpenAICompletions) {
    throw ConfigError("--max-tokens-field applies to --api openai-chat and openai; --api " +
                      to_string(c.api) + " has its own field");
  }
  if (c.batch_size < 1 || c.batch_size > 4096) {
    throw ConfigError("--batch-size must be an integer in [1, 4096]");
  }
  if (c.batch_size > 1 && c.api != ApiKind::kEmbeddings) {
    throw ConfigError(
        "--batch-size sends several inputs per request of --api openai-embeddings; "
        "--api " +
        to_string(c.api) + " takes one prompt per request" +
        (c.api == ApiKind::kRerank || c.api == ApiKind::kScore ? " and --documents" : ""));
  }
  const bool pairs = c.api == ApiKind::kRerank || c.api == ApiKind::kScore;
  if (c.documents < 1 || c.documents > 1000) {
    throw ConfigError("--documents must be an integer in [1, 1000]");
  }
  if (!pairs && (c.documents != RunConfig{}.documents || c.query_len != 0)) {
    throw ConfigError(
        std::string(c.documents != RunConfig{}.documents ? "--documents" : "--query-len") +
        " shapes requests of --api rerank and score; --api " + to_string(c.api) +
        " takes one prompt per request");
  }
  if (c.query_len < 0 || c.query_len > 1'000'000) {
    throw ConfigError("--query-len must be 0 (a document's length) to 1000000 tokens");
  }
  if (c.query_len > 0 && c.dataset != Dataset::kRandom) {
    throw ConfigError("--query-len sets --dataset random's queries; --dataset " +
                      to_string(c.dataset) + " gives its own prompts as queries");
  }
}

// --extra-body: a JSON object, checked before anything is created (the request bodies are built
// after the results directory exists). Its text is not quoted: it may hold a credential.
void check_extra_body(const std::string& text) {
  if (text.empty()) return;
  try {
    if (!parse_json(text).is_object()) {
      throw ConfigError("--extra-body must be a JSON object, e.g. '{\"temperature\":0}'");
    }
  } catch (const nlohmann::json::parse_error& e) {
    const std::string deep = json_depth_error(text);
    throw ConfigError(fmt::format(
        "--extra-body is not valid JSON ({}): give a JSON object, e.g. '{{\"temperature\":0}}'",
        deep.empty() ? fmt::format("at byte {}", e.byte) : deep));
  }
}

// Replicas, targets and HTTP/2's streams.
void check_targets(const RunConfig& c) {
  if (!c.http2 && c.http2_streams != RunConfig{}.http2_streams) {
    throw ConfigError("--http2-streams " + std::to_string(c.http2_streams) +
                      " needs --http2 (HTTP/1.1 carries one request per connection)");
  }
  if (!c.targets.empty() && !c.replica_urls.empty()) {
    throw ConfigError("several --base-url (replicas) and several targets cannot be combined");
  }
  for (std::size_t i = 0; i < c.targets.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      const auto& a = c.targets[i].name.empty() ? c.targets[i].model : c.targets[i].name;
      const auto& b = c.targets[j].name.empty() ? c.targets[j].model : c.targets[j].name;
      if (a == b) throw ConfigError("two targets are both named '" + a + "': add name=LABEL");
    }
  }
  if (c.ramp_up != RampKind::kNone && std::isinf(c.request_rate)) {
    throw ConfigError("--ramp-up climbs to --request-rate: give a finite --request-rate");
  }
  const RequestMix mix = request_mix(c);  // throws on bad names and weights
  if (!mix.empty()) {
    const char* flag = mix.lora ? "--lora-modules" : "--model-mix";
    if (!c.targets.empty()) {
      throw ConfigError(fmt::format(
          "{} names each request's model: compare targets without it (or give the models as "
          "--model a,b,c to compare them)",
          flag));
    }
  } else if (c.lora_assignment != RunConfig{}.lora_assignment) {
    throw ConfigError(
        "--lora-assignment chooses among --lora-modules or --model-mix: add one of them");
  }
}

// --multi-turn and the flags that shape sessions (--think-time's syntax: load::parse_think_time,
// in the CLI); --dataset jobs, whose calls are sent as sessions' turns are.
void check_sessions(const RunConfig& c) {
  const RunConfig d;
  const bool jobs = c.dataset == Dataset::kJobs;
  if (jobs && c.multi_turn) {
    throw ConfigError(
        "--dataset jobs sends each job's calls in the order its file gives: leave out "
        "--multi-turn");
  }
  if (jobs && (c.turns != d.turns || c.think_time != d.think_time || !c.session_field.empty())) {
    throw ConfigError(
        "--turns, --think-time and --session-field shape --multi-turn sessions; a job file gives "
        "its calls, their order and their delays (delay_ms)");
  }
  if (!c.multi_turn && !jobs) {
    if (c.turns != d.turns || c.think_time != d.think_time ||
        c.concurrency_unit != d.concurrency_unit || !c.session_field.empty()) {
      throw ConfigError(
          "--turns, --think-time, --concurrency-unit and --session-field shape the sessions of "
          "--multi-turn (or, --concurrency-unit, the jobs of --dataset jobs): add --multi-turn");
    }
    return;
  }
  const std::string what = jobs ? "--dataset jobs" : "--multi-turn";
  if (!is_dialogue_api(c.api)) {
    throw ConfigError(what +
                      " sends conversations: use --api openai-chat, anthropic-messages "
                      "or openai-responses (not " +
                      to_string(c.api) + ")");
  }
  const auto refuse = [&](bool given, const char* flag) {
    if (given) throw ConfigError(std::string(flag) + " does not apply to " + what + " runs");
  };
  refuse(c.replay, "--replay");
  refuse(c.nonstream_sample > 0, "--nonstream-sample");
  refuse(c.drop_first_pct > 0, "--drop-first");
  refuse(!c.targets.empty(), "comparing targets (--target, --model a,b)");
  refuse(c.ramp_up != RampKind::kNone, "--ramp-up");
  refuse(c.image_count > 0, "--image-count");
  refuse(!c.lora_modules.empty(), "--lora-modules");
  refuse(!c.model_mix.empty(), "--model-mix");
  if (c.turns < 0 || c.turns > 1000) throw ConfigError("--turns must be an integer in [0, 1000]");
  if (!c.session_field.empty() && c.dataset != Dataset::kJsonl && c.dataset != Dataset::kCsv) {
    throw ConfigError("--session-field names a field of --dataset jsonl or csv; --dataset " +
                      to_string(c.dataset) + " has its own sessions");
  }
}

// --replay and its trace.
void check_replay(const RunConfig& c) {
  if (c.replay) {
    const bool timed =
        has_arrival_times(c.dataset) || (c.dataset == Dataset::kCsv && !c.timestamp_field.empty());
    if (!timed) {
      throw ConfigError(
          "--replay needs a dataset with arrival times: burstgpt, azure, mooncake, "
          "or csv with --timestamp-field");
    }
    if (!std::isinf(c.request_rate)) {
      throw ConfigError("--replay sends at the trace's times: leave out --request-rate");
    }
    if (!std::isfinite(c.replay_speed) || c.replay_speed <= 0) {
      throw ConfigError("--replay-speed must be a number > 0 (2 replays twice as fast)");
    }
  } else if (c.replay_speed != 1.0) {
    throw ConfigError("--replay-speed applies to --replay: add --replay");
  }
}

// The dataset's own flags (its name, the lengths' and images' syntax and its file: the CLI).
void check_prefix_hit_rate(const RunConfig& c) {
  if (c.prefix_hit_rate < 0) return;
  if (c.dataset != Dataset::kRandom) {
    throw ConfigError("--prefix-hit-rate shapes --dataset random's prompts; --dataset " +
                      to_string(c.dataset) + " has its own");
  }
  if (c.random_prefix_len > 0) {
    throw ConfigError(
        "--prefix-hit-rate chooses each prompt's shared prefix: leave out --random-prefix-len");
  }
  if (!c.tokenizer.empty()) {
    throw ConfigError(
        "--prefix-hit-rate builds prompts of words, a token each, as serve-sim and the ideal "
        "cache count them: leave out --tokenizer");
  }
  if (c.cache_block == 0) {
    throw ConfigError("--prefix-hit-rate needs the ideal prefix cache: leave out --cache-block 0");
  }
  if (c.multi_turn) throw ConfigError("--prefix-hit-rate does not apply to --multi-turn runs");
}

void check_dataset(const RunConfig& c) {
  check_prefix_hit_rate(c);
  if (!c.jobs_spec.empty() && c.dataset != Dataset::kJobs) {
    throw ConfigError("--jobs makes synthetic agentic jobs: add --dataset jobs");
  }
  if (!c.jobs_spec.empty() && !c.dataset_path.empty()) {
    throw ConfigError(
        "--jobs makes jobs from the seed and --dataset-path reads them from a file: give one");
  }
  for (const auto& [flag, spec] :
       {std::pair{"--input-dist", c.input_dist}, std::pair{"--output-dist", c.output_dist}}) {
    if (spec != "fixed" && c.dataset != Dataset::kRandom && c.dataset != Dataset::kSharedPrefix) {
      throw ConfigError(std::string(flag) +
                        " draws the lengths of --dataset random and shared-prefix; --dataset " +
                        to_string(c.dataset) + " has its own");
    }
  }
  if (c.image_count < 0 || c.image_count > 64) {
    throw ConfigError("--image-count " + std::to_string(c.image_count) +
                      " is out of range: give 0 to 64 images per request");
  }
  if (c.image_count > 0 && !is_dialogue_api(c.api)) {
    throw ConfigError(
        "--image-count: images need --api openai-chat, anthropic-messages or openai-responses "
        "(their messages carry them)");
  }
  check_replay(c);
  if (c.dataset == Dataset::kFixed) {
    if (c.prompt.empty()) throw ConfigError("--dataset fixed needs --prompt TEXT");
    return;
  }
  if (!c.prompt.empty()) {
    throw ConfigError("--prompt is the prompt of --dataset fixed: add --dataset fixed");
  }
  if (c.dataset == Dataset::kSharedPrefix) {
    if (c.prefix_groups < 1 || c.prefix_groups > 100000 || c.prompts_per_group < 1 ||
        c.prompts_per_group > 100000 || c.prefix_len < 0 || c.prefix_len > 10000000) {
      throw ConfigError(
          "--dataset shared-prefix: --prefix-groups and --prompts-per-group must be "
          "1 to 100000, --prefix-len 0 to 10^7");
    }
    return;
  }
  if (c.dataset == Dataset::kSonnet &&
      (c.sonnet_prefix_len < 0 || c.sonnet_prefix_len > c.input_len)) {
    throw ConfigError("--sonnet-prefix-len " + std::to_string(c.sonnet_prefix_len) +
                      " is out of range: give 0 to --input-len (" + std::to_string(c.input_len) +
                      ") tokens");
  }
  if (!reads_file(c.dataset)) return;
  if (c.dataset == Dataset::kJobs && c.dataset_path.empty() && c.jobs_spec.empty()) {
    throw ConfigError(
        "--dataset jobs needs --dataset-path FILE (a job file) or --jobs SPEC (synthetic jobs, "
        "e.g. fanout:3,depth:1,tools:2)");
  }
  if (c.dataset_path.empty() && c.jobs_spec.empty()) {
    throw ConfigError("--dataset " + to_string(c.dataset) + " needs --dataset-path FILE");
  }
  const bool fields =
      c.prompt_field != "prompt" || !c.output_len_field.empty() || !c.timestamp_field.empty();
  if (fields && c.dataset != Dataset::kCsv) {
    throw ConfigError(
        "--prompt-field, --output-len-field and --timestamp-field name columns of "
        "--dataset csv; --dataset " +
        to_string(c.dataset) + " has its own layout");
  }
}

// RFC 9110's tchar: what a header name (a token) is made of.
bool is_token_char(char ch) {
  return std::isalnum(static_cast<unsigned char>(ch)) != 0 ||
         std::string_view("!#$%&'*+-.^_`|~").find(ch) != std::string_view::npos;
}

}  // namespace

void check_headers(const std::vector<std::string>& headers) {
  for (const auto& h : headers) {
    const auto colon = h.find(':');
    if (colon == std::string::npos) {
      throw ConfigError("--header '" + one_line(h) + "' must look like 'Name: value'");
    }
    // Said by its name alone: the value may be a credential.
    const std::string_view name(h.data(), colon);
    if (name.empty()) {
      throw ConfigError("--header has no name before its ':': give 'Name: value'");
    }
    if (!std::all_of(name.begin(), name.end(), is_token_char)) {
      throw ConfigError("--header: the name '" + one_line(std::string(name)) +
                        "' is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~; no spaces)");
    }
    if (h.find_first_of("\r\n") != std::string::npos) {
      // A line break would put a second header of the user's text on the wire.
      throw ConfigError("--header '" + one_line(h) +
                        "' holds a line break: give one header per --header");
    }
  }
}

// --otlp-endpoint an http(s) URL; each --otlp-header NAME=VALUE, said by its name alone (the
// value is a credential).
void check_otlp(const RunConfig& c) {
  if (!c.otlp_endpoint.empty() && c.otlp_endpoint.rfind("http://", 0) != 0 &&
      c.otlp_endpoint.rfind("https://", 0) != 0) {
    throw ConfigError("--otlp-endpoint '" + one_line(redact_query(c.otlp_endpoint)) +
                      "' is not an http:// or https:// URL");
  }
  if (!c.otlp_headers.empty() && c.otlp_endpoint.empty()) {
    throw ConfigError("--otlp-header is sent with the --otlp-endpoint export: give the endpoint");
  }
  for (const auto& h : c.otlp_headers) {
    const auto eq = h.find('=');
    const std::string_view name(h.data(), eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || name.empty()) {
      throw ConfigError("--otlp-header must look like NAME=VALUE (its value is not shown)");
    }
    if (!std::all_of(name.begin(), name.end(), is_token_char)) {
      throw ConfigError("--otlp-header: the name '" + one_line(std::string(name)) +
                        "' is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~; no spaces)");
    }
    if (h.find_first_of("\r\n") != std::string::npos) {
      throw ConfigError("--otlp-header " + std::string(name) +
                        "=...: the value holds a line break: give one header per --otlp-header");
    }
  }
}

void validate_run(const RunConfig& c) {
  check_api_options(c);
  check_targets(c);
  validate(c);
  check_headers(c.headers);
  check_otlp(c);
  check_extra_body(c.extra_body);
  check_dataset(c);
  check_sessions(c);
}

}  // namespace tokenbench::core
