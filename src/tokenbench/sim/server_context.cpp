#include "tokenbench/sim/server_context.h"

#include <ctime>
#include <utility>

#include "tokenbench/sim/openai_render.h"

namespace tokenbench::sim {

ServerContext::ServerContext(SimConfig c)
    : config(std::move(c)), faults(config.faults, config.seed), metrics(config.model) {
  if (config.mode == TimingMode::kEngine) {
    engine = std::make_unique<EngineRunner>(config.engine, config.time_scale, metrics);
  }
  append_json_escaped(model_json, config.model);
  models_reply = models_body(config.model, static_cast<std::int64_t>(std::time(nullptr)));
  if (!config.api_key.empty()) expected_auth = "Bearer " + config.api_key;
}

}  // namespace tokenbench::sim
