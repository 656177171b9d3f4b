#include "tokenbench/sim/server_context.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <string_view>
#include <utility>

#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/openai_render.h"
#include "tokenbench/sim/openai_request.h"

namespace tokenbench::sim {
namespace {

// The name /v1/models reports when the config names none: the command line resolves a preset
// into parameters, so an engine that equals a preset's parameters is taken to be that preset.
std::string_view preset_name(const SimConfig& config) {
  if (!config.preset.empty()) return config.preset;
  if (config.mode == TimingMode::kFixed) return "fixed";
  for (const EnginePreset& p : engine_presets()) {
    if (p.params == config.engine) return p.name;
  }
  return "custom";
}

}  // namespace

ServerContext::ServerContext(SimConfig c)
    : config(std::move(c)), faults(config.faults, config.seed), metrics(config.model) {
  // As the engine does: a scale that is not a positive number is 1.
  if (!(config.time_scale > 0) || !std::isfinite(config.time_scale)) config.time_scale = 1.0;
  if (config.mode == TimingMode::kEngine) {
    engine = std::make_unique<EngineRunner>(config.engine, config.time_scale, metrics, config.seed);
    metrics.set_spec_decode_tokens(config.engine.spec_decode.k);
    if (config.engine.lora_adapters > 0) metrics.set_lora_config(config.engine.max_loras);
  }
  if (config.measure_lateness) {
    lateness =
        std::make_unique<WriteLateness>(static_cast<std::size_t>(std::max(1, config.threads)));
  }
  if (!config.request_log.empty()) request_log = std::make_unique<RequestLog>(config.request_log);
  append_json_escaped(model_json, config.model);
  // The longest sequence served, as the completion handler checks it.
  std::int64_t limit = config.max_model_len;
  if (engine) limit = std::min(limit, config.engine.total_blocks() * config.engine.block_size);
  models_reply = models_body(config.model, static_cast<std::int64_t>(std::time(nullptr)),
                             {.time_scale = config.time_scale,
                              .preset = preset_name(config),
                              .max_model_len = limit,
                              .lora_adapters = engine ? config.engine.lora_adapters : 0});
  response_headers = server_headers(config.time_scale);
  version_reply = version_body(config.server_version);
  router = {.model = config.model,
            .default_max_tokens = config.default_max_tokens,
            .hash_block_size =
                engine && config.engine.enable_prefix_caching ? config.engine.block_size : 0,
            .context_limit = limit,
            .max_body_values = request_value_limit(config.max_model_len),
            .api_key = config.api_key,
            .lora_adapters = engine ? config.engine.lora_adapters : 0};
  body_limit = request_body_limit(config.max_model_len);
  route_pool = std::make_unique<boost::asio::thread_pool>(1);
  if (config.role == Role::kDecode) {
    prefill = parse_prefill_url(config.prefill_url);  // throws on a bad URL
    prefill_pool = std::make_unique<boost::asio::thread_pool>(kPrefillThreads);
  }
}

}  // namespace tokenbench::sim
