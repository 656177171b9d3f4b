#include "tokenbench/core/run_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include "tokenbench/core/secret_fields.h"

namespace tokenbench::core {
bool is_secret_header(const std::string& header) {
  std::string name = header.substr(0, header.find(':'));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* word : {"auth", "key", "token", "secret", "password", "cookie", "session"}) {
    if (name.find(word) != std::string::npos) return true;
  }
  return false;
}

namespace {

std::string redact_header(const std::string& header) {
  if (!is_secret_header(header)) return header;
  return header.substr(0, header.find(':')) + ": <redacted>";
}

// YAML has no infinity literal that every reader agrees on; we write ".inf" as YAML 1.2 does.
void emit_double(YAML::Emitter& out, double v) {
  if (std::isinf(v)) {
    out << ".inf";
  } else {
    out << v;
  }
}

double read_double(const YAML::Node& n) {
  const auto s = n.as<std::string>();
  if (s == ".inf" || s == "inf") return std::numeric_limits<double>::infinity();
  return n.as<double>();
}

}  // namespace

std::string to_string(ApiKind a) {
  switch (a) {
    case ApiKind::kOpenAIChat:
      return "openai-chat";
    case ApiKind::kOpenAICompletions:
      return "openai";
    case ApiKind::kEmbeddings:
      return "openai-embeddings";
    case ApiKind::kAnthropicMessages:
      return "anthropic-messages";
    case ApiKind::kOpenAIResponses:
      return "openai-responses";
  }
  return "openai-chat";
}

std::optional<ApiKind> api_kind_from_string(const std::string& name) {
  for (const ApiKind a : {ApiKind::kOpenAIChat, ApiKind::kOpenAICompletions, ApiKind::kEmbeddings,
                          ApiKind::kAnthropicMessages, ApiKind::kOpenAIResponses}) {
    if (name == to_string(a)) return a;
  }
  if (name == "chat") return ApiKind::kOpenAIChat;
  if (name == "completions") return ApiKind::kOpenAICompletions;
  if (name == "embeddings") return ApiKind::kEmbeddings;
  if (name == "anthropic" || name == "messages") return ApiKind::kAnthropicMessages;
  if (name == "responses") return ApiKind::kOpenAIResponses;
  return std::nullopt;
}

std::string default_endpoint(ApiKind api) {
  switch (api) {
    case ApiKind::kOpenAIChat:
      return "/v1/chat/completions";
    case ApiKind::kOpenAICompletions:
      return "/v1/completions";
    case ApiKind::kEmbeddings:
      return "/v1/embeddings";
    case ApiKind::kAnthropicMessages:
      return "/v1/messages";
    case ApiKind::kOpenAIResponses:
      return "/v1/responses";
  }
  return "/v1/chat/completions";
}

std::string to_string(ArrivalKind a) { return a == ArrivalKind::kGamma ? "gamma" : "constant"; }

std::string to_string(RampKind r) {
  switch (r) {
    case RampKind::kLinear:
      return "linear";
    case RampKind::kExponential:
      return "exponential";
    case RampKind::kNone:
      break;
  }
  return "none";
}

std::string to_string(BalanceKind b) {
  return b == BalanceKind::kLeastInflight ? "least-inflight" : "round-robin";
}

std::string to_yaml(const RunConfig& c) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "target" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "base_url" << YAML::Value << redact_query(c.base_url);
  out << YAML::Key << "endpoint" << YAML::Value << redact_query(c.endpoint);
  out << YAML::Key << "api" << YAML::Value << to_string(c.api);
  out << YAML::Key << "model" << YAML::Value << c.model;
  out << YAML::Key << "headers" << YAML::Value << YAML::BeginSeq;
  for (const auto& h : c.headers) out << redact_header(h);
  out << YAML::EndSeq;
  out << YAML::Key << "extra_body" << YAML::Value << redact_json_fields(c.extra_body);
  out << YAML::Key << "max_tokens_field" << YAML::Value << c.max_tokens_field;
  out << YAML::Key << "batch_size" << YAML::Value << c.batch_size;
  out << YAML::Key << "timeout_s" << YAML::Value << c.timeout_s;
  out << YAML::Key << "connect_timeout_s" << YAML::Value << c.connect_timeout_s;
  out << YAML::Key << "connection_mode" << YAML::Value << c.connection_mode;
  out << YAML::Key << "stamps" << YAML::Value << c.stamps;
  out << YAML::Key << "transport" << YAML::Value << c.transport;
  out << YAML::Key << "http2" << YAML::Value << c.http2;
  out << YAML::Key << "http2_streams" << YAML::Value << c.http2_streams;
  out << YAML::Key << "ca_file" << YAML::Value << c.ca_file;
  out << YAML::Key << "insecure" << YAML::Value << c.insecure;
  out << YAML::Key << "ttft_timeout_s" << YAML::Value << c.ttft_timeout_s;
  out << YAML::Key << "stall_timeout_s" << YAML::Value << c.stall_timeout_s;
  out << YAML::Key << "max_event_bytes" << YAML::Value << c.max_event_bytes;
  out << YAML::Key << "max_reply_bytes" << YAML::Value << c.max_reply_bytes;
  out << YAML::Key << "retries" << YAML::Value << c.retries;
  out << YAML::Key << "preflight" << YAML::Value << c.preflight;
  out << YAML::Key << "api_key_env" << YAML::Value << c.api_key_env;
  out << YAML::Key << "stream" << YAML::Value << c.stream;
  out << YAML::Key << "request_id" << YAML::Value << c.request_id;
  out << YAML::Key << "nonstream_sample" << YAML::Value << c.nonstream_sample;
  if (!c.replica_urls.empty()) {
    std::vector<std::string> replicas;
    for (const auto& url : c.replica_urls) replicas.push_back(redact_query(url));
    out << YAML::Key << "replicas" << YAML::Value << YAML::Flow << replicas;
    out << YAML::Key << "balance" << YAML::Value << to_string(c.balance);
  }
  if (!c.targets.empty()) {
    out << YAML::Key << "targets" << YAML::Value << YAML::BeginSeq;
    for (const auto& t : c.targets) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << t.name
          << YAML::Key << "base_url" << YAML::Value << redact_query(t.base_url) << YAML::Key
          << "model" << YAML::Value << t.model << YAML::Key << "api_key_env" << YAML::Value
          << t.api_key_env << YAML::EndMap;
    }
    out << YAML::EndSeq;
    out << YAML::Key << "target_load" << YAML::Value << c.target_load;
  }
  out << YAML::EndMap;

  out << YAML::Key << "load" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "max_concurrency" << YAML::Value << c.max_concurrency;
  out << YAML::Key << "request_rate" << YAML::Value;
  emit_double(out, c.request_rate);
  out << YAML::Key << "burstiness" << YAML::Value << c.burstiness;
  if (c.replay) {
    out << YAML::Key << "replay" << YAML::Value << true;
    out << YAML::Key << "replay_speed" << YAML::Value << c.replay_speed;
  }
  out << YAML::Key << "arrival" << YAML::Value << to_string(c.arrival);
  out << YAML::Key << "num_prompts" << YAML::Value << c.num_prompts;
  out << YAML::Key << "duration_s" << YAML::Value << c.duration_s;
  out << YAML::Key << "warmup" << YAML::Value << c.warmup;
  out << YAML::Key << "seed" << YAML::Value << c.seed;
  out << YAML::Key << "workers" << YAML::Value << c.workers;
  out << YAML::Key << "ramp_up" << YAML::Value << to_string(c.ramp_up);
  out << YAML::Key << "ramp_up_start_rps" << YAML::Value << c.ramp_up_start_rps;
  out << YAML::Key << "ramp_up_duration_s" << YAML::Value << c.ramp_up_duration_s;
  out << YAML::Key << "drop_first_pct" << YAML::Value << c.drop_first_pct;
  out << YAML::Key << "fail_fast" << YAML::Value << c.fail_fast;
  out << YAML::Key << "server_metrics" << YAML::Value << redact_query(c.server_metrics);
  if (c.server_metrics_auth) out << YAML::Key << "server_metrics_auth" << YAML::Value << true;
  out << YAML::Key << "metrics_interval_s" << YAML::Value << c.metrics_interval_s;
  out << YAML::Key << "gpu_metrics" << YAML::Value << c.gpu_metrics;
  out << YAML::Key << "max_error_rate" << YAML::Value << c.max_error_rate;
  out << YAML::Key << "abort_on_error_rate" << YAML::Value << c.abort_on_error_rate;
  out << YAML::EndMap;

  out << YAML::Key << "workload" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "dataset" << YAML::Value << c.dataset;
  out << YAML::Key << "dataset_path" << YAML::Value << c.dataset_path;
  out << YAML::Key << "input_len" << YAML::Value << c.input_len;
  out << YAML::Key << "output_len" << YAML::Value << c.output_len;
  out << YAML::Key << "output_len_from_dataset" << YAML::Value << c.output_len_from_dataset;
  if (!c.prompt.empty()) out << YAML::Key << "prompt" << YAML::Value << c.prompt;
  if (c.prompt_field != "prompt") {
    out << YAML::Key << "prompt_field" << YAML::Value << c.prompt_field;
  }
  if (!c.output_len_field.empty()) {
    out << YAML::Key << "output_len_field" << YAML::Value << c.output_len_field;
  }
  if (!c.timestamp_field.empty()) {
    out << YAML::Key << "timestamp_field" << YAML::Value << c.timestamp_field;
  }
  if (!c.session_field.empty()) {
    out << YAML::Key << "session_field" << YAML::Value << c.session_field;
  }
  if (c.multi_turn) {
    out << YAML::Key << "multi_turn" << YAML::Value << c.multi_turn;
    out << YAML::Key << "turns" << YAML::Value << c.turns;
    out << YAML::Key << "think_time" << YAML::Value << c.think_time;
    out << YAML::Key << "concurrency_unit" << YAML::Value << c.concurrency_unit;
  }
  if (c.dataset == "shared-prefix") {
    out << YAML::Key << "prefix_groups" << YAML::Value << c.prefix_groups;
    out << YAML::Key << "prompts_per_group" << YAML::Value << c.prompts_per_group;
    out << YAML::Key << "prefix_len" << YAML::Value << c.prefix_len;
    out << YAML::Key << "group_order" << YAML::Value << c.group_order;
  }
  if (c.dataset == "sonnet") {
    out << YAML::Key << "sonnet_prefix_len" << YAML::Value << c.sonnet_prefix_len;
  }
  out << YAML::Key << "range_ratio" << YAML::Value << c.range_ratio;
  out << YAML::Key << "random_prefix_len" << YAML::Value << c.random_prefix_len;
  if (c.input_dist != "fixed") out << YAML::Key << "input_dist" << YAML::Value << c.input_dist;
  if (c.output_dist != "fixed") out << YAML::Key << "output_dist" << YAML::Value << c.output_dist;
  if (c.image_count > 0) {
    out << YAML::Key << "image_count" << YAML::Value << c.image_count;
    out << YAML::Key << "image_size" << YAML::Value << c.image_size;
  }
  out << YAML::Key << "ignore_eos" << YAML::Value << c.ignore_eos;
  out << YAML::Key << "tokenizer" << YAML::Value << c.tokenizer;
  out << YAML::Key << "tiktoken_encoding" << YAML::Value << c.tiktoken_encoding;
  if (c.max_line_bytes != kDefaultMaxLineBytes) {
    out << YAML::Key << "max_line_bytes" << YAML::Value << c.max_line_bytes;
  }
  out << YAML::EndMap;

  out << YAML::Key << "metrics" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "percentiles" << YAML::Value << YAML::Flow << c.percentiles;
  out << YAML::Key << "goodput" << YAML::Value << YAML::Flow << c.goodput;
  out << YAML::Key << "slo" << YAML::Value << YAML::Flow << c.slo;
  out << YAML::Key << "console_style" << YAML::Value << c.console_style;
  out << YAML::Key << "sim_time_scale" << YAML::Value << c.sim_time_scale;
  out << YAML::Key << "sim_time" << YAML::Value << c.sim_time;
  out << YAML::Key << "buckets" << YAML::Value << YAML::Flow << c.buckets;
  out << YAML::EndMap;

  out << YAML::Key << "labels" << YAML::Value << YAML::Flow << c.labels;
  out << YAML::Key << "output_dir" << YAML::Value << c.output_dir;
  if (!c.result_filename.empty()) {
    out << YAML::Key << "result_filename" << YAML::Value << c.result_filename;
  }
  out << YAML::Key << "exports" << YAML::Value << YAML::Flow << c.exports;
  out << YAML::Key << "records_compress" << YAML::Value << c.records_compress;
  if (c.save_detailed) out << YAML::Key << "save_detailed" << YAML::Value << true;
  out << YAML::Key << "started_at" << YAML::Value << c.started_at;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

RunConfig run_config_from_yaml(const std::string& text) {
  RunConfig c;
  try {
    const YAML::Node root = YAML::Load(text);
    if (const auto t = root["target"]) {
      if (t["base_url"]) c.base_url = t["base_url"].as<std::string>();
      if (t["endpoint"]) c.endpoint = t["endpoint"].as<std::string>();
      if (t["api"]) {
        const auto api = t["api"].as<std::string>();
        const auto kind = api_kind_from_string(api);
        if (!kind) {
          throw std::runtime_error("config.yaml: target.api '" + api +
                                   "' is not known: use openai-chat, openai, openai-embeddings, "
                                   "anthropic-messages or openai-responses");
        }
        c.api = *kind;
      }
      if (t["model"]) c.model = t["model"].as<std::string>();
      if (t["headers"]) c.headers = t["headers"].as<std::vector<std::string>>();
      if (t["extra_body"]) c.extra_body = t["extra_body"].as<std::string>();
      if (t["max_tokens_field"]) c.max_tokens_field = t["max_tokens_field"].as<std::string>();
      if (t["batch_size"]) c.batch_size = t["batch_size"].as<int>();
      if (t["timeout_s"]) c.timeout_s = t["timeout_s"].as<double>();
      if (t["connect_timeout_s"]) c.connect_timeout_s = t["connect_timeout_s"].as<double>();
      if (t["connection_mode"]) c.connection_mode = t["connection_mode"].as<std::string>();
      if (t["stamps"]) c.stamps = t["stamps"].as<std::string>();
      if (t["transport"]) c.transport = t["transport"].as<std::string>();
      if (t["http2"]) c.http2 = t["http2"].as<bool>();
      if (t["http2_streams"]) c.http2_streams = t["http2_streams"].as<int>();
      if (t["ca_file"]) c.ca_file = t["ca_file"].as<std::string>();
      if (t["insecure"]) c.insecure = t["insecure"].as<bool>();
      if (t["ttft_timeout_s"]) c.ttft_timeout_s = t["ttft_timeout_s"].as<double>();
      if (t["stall_timeout_s"]) c.stall_timeout_s = t["stall_timeout_s"].as<double>();
      if (t["max_event_bytes"]) c.max_event_bytes = t["max_event_bytes"].as<std::int64_t>();
      if (t["max_reply_bytes"]) c.max_reply_bytes = t["max_reply_bytes"].as<std::int64_t>();
      if (t["retries"]) c.retries = t["retries"].as<int>();
      if (t["preflight"]) c.preflight = t["preflight"].as<bool>();
      if (t["api_key_env"]) c.api_key_env = t["api_key_env"].as<std::string>();
      if (t["stream"]) c.stream = t["stream"].as<bool>();
      if (t["request_id"]) c.request_id = t["request_id"].as<bool>();
      if (t["nonstream_sample"]) c.nonstream_sample = t["nonstream_sample"].as<std::int64_t>();
      if (t["replicas"]) c.replica_urls = t["replicas"].as<std::vector<std::string>>();
      if (t["balance"]) {
        c.balance = t["balance"].as<std::string>() == "least-inflight" ? BalanceKind::kLeastInflight
                                                                       : BalanceKind::kRoundRobin;
      }
      for (const auto& n : t["targets"]) {
        TargetSpec spec;
        if (n["name"]) spec.name = n["name"].as<std::string>();
        if (n["base_url"]) spec.base_url = n["base_url"].as<std::string>();
        if (n["model"]) spec.model = n["model"].as<std::string>();
        if (n["api_key_env"]) spec.api_key_env = n["api_key_env"].as<std::string>();
        c.targets.push_back(std::move(spec));
      }
      if (t["target_load"]) c.target_load = t["target_load"].as<std::string>();
    }
    if (const auto l = root["load"]) {
      if (l["max_concurrency"]) c.max_concurrency = l["max_concurrency"].as<int>();
      if (l["request_rate"]) c.request_rate = read_double(l["request_rate"]);
      if (l["burstiness"]) c.burstiness = l["burstiness"].as<double>();
      if (l["replay"]) c.replay = l["replay"].as<bool>();
      if (l["replay_speed"]) c.replay_speed = l["replay_speed"].as<double>();
      if (l["arrival"]) {
        c.arrival = l["arrival"].as<std::string>() == "constant" ? ArrivalKind::kConstant
                                                                 : ArrivalKind::kGamma;
      }
      if (l["num_prompts"]) c.num_prompts = l["num_prompts"].as<std::int64_t>();
      if (l["duration_s"]) c.duration_s = l["duration_s"].as<double>();
      if (l["warmup"]) c.warmup = l["warmup"].as<std::int64_t>();
      if (l["seed"]) c.seed = l["seed"].as<std::uint64_t>();
      if (l["workers"]) c.workers = l["workers"].as<int>();
      if (l["ramp_up"]) {
        const auto r = l["ramp_up"].as<std::string>();
        c.ramp_up = r == "linear"        ? RampKind::kLinear
                    : r == "exponential" ? RampKind::kExponential
                                         : RampKind::kNone;
      }
      if (l["ramp_up_start_rps"]) c.ramp_up_start_rps = l["ramp_up_start_rps"].as<double>();
      if (l["ramp_up_duration_s"]) c.ramp_up_duration_s = l["ramp_up_duration_s"].as<double>();
      if (l["drop_first_pct"]) c.drop_first_pct = l["drop_first_pct"].as<double>();
      if (l["fail_fast"]) c.fail_fast = l["fail_fast"].as<int>();
      if (l["server_metrics"]) c.server_metrics = l["server_metrics"].as<std::string>();
      if (l["server_metrics_auth"]) c.server_metrics_auth = l["server_metrics_auth"].as<bool>();
      if (l["metrics_interval_s"]) c.metrics_interval_s = l["metrics_interval_s"].as<double>();
      if (l["gpu_metrics"]) c.gpu_metrics = l["gpu_metrics"].as<std::string>();
      if (l["abort_on_error_rate"]) {
        c.max_error_rate = l["max_error_rate"] ? l["max_error_rate"].as<double>() : 0.5;
        c.abort_on_error_rate = l["abort_on_error_rate"].as<double>();
      } else if (l["max_error_rate"]) {
        // A config.yaml from before abort_on_error_rate: its max_error_rate was the in-run stop.
        c.abort_on_error_rate = l["max_error_rate"].as<double>();
      }
    }
    if (const auto w = root["workload"]) {
      if (w["dataset"]) c.dataset = w["dataset"].as<std::string>();
      if (w["dataset_path"]) c.dataset_path = w["dataset_path"].as<std::string>();
      if (w["input_len"]) c.input_len = w["input_len"].as<std::int64_t>();
      if (w["output_len"]) c.output_len = w["output_len"].as<std::int64_t>();
      if (w["output_len_from_dataset"]) {
        c.output_len_from_dataset = w["output_len_from_dataset"].as<bool>();
      }
      if (w["prompt"]) c.prompt = w["prompt"].as<std::string>();
      if (w["prompt_field"]) c.prompt_field = w["prompt_field"].as<std::string>();
      if (w["output_len_field"]) c.output_len_field = w["output_len_field"].as<std::string>();
      if (w["timestamp_field"]) c.timestamp_field = w["timestamp_field"].as<std::string>();
      if (w["session_field"]) c.session_field = w["session_field"].as<std::string>();
      if (w["multi_turn"]) c.multi_turn = w["multi_turn"].as<bool>();
      if (w["turns"]) c.turns = w["turns"].as<std::int64_t>();
      if (w["think_time"]) c.think_time = w["think_time"].as<std::string>();
      if (w["concurrency_unit"]) c.concurrency_unit = w["concurrency_unit"].as<std::string>();
      if (w["prefix_groups"]) c.prefix_groups = w["prefix_groups"].as<std::int64_t>();
      if (w["prompts_per_group"]) c.prompts_per_group = w["prompts_per_group"].as<std::int64_t>();
      if (w["prefix_len"]) c.prefix_len = w["prefix_len"].as<std::int64_t>();
      if (w["group_order"]) c.group_order = w["group_order"].as<std::string>();
      if (w["sonnet_prefix_len"]) c.sonnet_prefix_len = w["sonnet_prefix_len"].as<std::int64_t>();
      if (w["range_ratio"]) c.range_ratio = w["range_ratio"].as<double>();
      if (w["random_prefix_len"]) c.random_prefix_len = w["random_prefix_len"].as<std::int64_t>();
      if (w["input_dist"]) c.input_dist = w["input_dist"].as<std::string>();
      if (w["output_dist"]) c.output_dist = w["output_dist"].as<std::string>();
      if (w["max_line_bytes"]) c.max_line_bytes = w["max_line_bytes"].as<std::int64_t>();
      if (w["image_count"]) c.image_count = w["image_count"].as<std::int64_t>();
      if (w["image_size"]) c.image_size = w["image_size"].as<std::string>();
      if (w["ignore_eos"]) c.ignore_eos = w["ignore_eos"].as<bool>();
      if (w["tokenizer"]) c.tokenizer = w["tokenizer"].as<std::string>();
      if (w["tiktoken_encoding"]) c.tiktoken_encoding = w["tiktoken_encoding"].as<std::string>();
    }
    if (const auto m = root["metrics"]) {
      if (m["percentiles"]) c.percentiles = m["percentiles"].as<std::vector<double>>();
      if (m["goodput"]) c.goodput = m["goodput"].as<std::vector<std::string>>();
      if (m["slo"]) c.slo = m["slo"].as<std::vector<std::string>>();
      if (m["console_style"]) c.console_style = m["console_style"].as<std::string>();
      if (m["sim_time_scale"]) c.sim_time_scale = m["sim_time_scale"].as<double>();
      if (m["sim_time"]) c.sim_time = m["sim_time"].as<bool>();
      if (m["buckets"]) c.buckets = m["buckets"].as<std::vector<std::string>>();
    }
    if (root["labels"]) c.labels = root["labels"].as<std::vector<std::string>>();
    if (root["output_dir"]) c.output_dir = root["output_dir"].as<std::string>();
    if (root["result_filename"]) c.result_filename = root["result_filename"].as<std::string>();
    if (root["exports"]) c.exports = root["exports"].as<std::vector<std::string>>();
    if (root["records_compress"]) c.records_compress = root["records_compress"].as<std::string>();
    if (root["save_detailed"]) c.save_detailed = root["save_detailed"].as<bool>();
    if (root["started_at"]) c.started_at = root["started_at"].as<std::string>();
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(std::string("config.yaml is not valid: ") + e.what());
  }
  return c;
}

}  // namespace tokenbench::core
