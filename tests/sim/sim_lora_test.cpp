// LoRA adapters (--lora-adapters, --max-loras, --lora-load-ms): residency and LRU eviction, the
// engine's load cost and its max_loras limit, and over HTTP /v1/models, the adapters' names and
// vllm:lora_requests_info.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "prometheus_text.h"
#include "sim_test_client.h"
#include "tokenbench/sim/engine_model.h"
#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/lora_slots.h"

namespace tokenbench::sim {
namespace {

using nlohmann::json;
using testing::HttpReply;
using testing::TestConnection;

constexpr ModelNanos kMs = 1'000'000;

TEST(SimLoraTest, NamesParseOneWay) {
  EXPECT_EQ(lora_index("lora-0", 3), 0);
  EXPECT_EQ(lora_index("lora-2", 3), 2);
  EXPECT_EQ(lora_index("lora-3", 3), -1);
  EXPECT_EQ(lora_index("lora-01", 3), -1);
  EXPECT_EQ(lora_index("lora-", 3), -1);
  EXPECT_EQ(lora_index("sim-model", 3), -1);
  std::string names;
  append_lora_names(names, {1, 0, 1, 1});
  EXPECT_EQ(names, "lora-0,lora-2,lora-3");
}

TEST(SimLoraTest, SlotsEvictTheLeastRecentlyUsedIdleAdapter) {
  LoraSlots slots(4, 2);
  EXPECT_TRUE(slots.acquire(0));   // loads 0
  EXPECT_TRUE(slots.acquire(1));   // loads 1
  EXPECT_FALSE(slots.acquire(1));  // already loaded
  EXPECT_FALSE(slots.can_admit(2)) << "both loaded adapters run";
  EXPECT_TRUE(slots.can_admit(-1)) << "the base model needs no slot";
  slots.release(0);
  EXPECT_TRUE(slots.can_admit(2));
  EXPECT_TRUE(slots.acquire(2));  // evicts 0, the only idle one
  EXPECT_TRUE(slots.can_admit(1));
  EXPECT_FALSE(slots.can_admit(0));
  slots.release(1);
  slots.release(1);
  slots.release(2);
  // 1 was used less recently than 2: a load of 3 evicts 1, and 2 stays loaded.
  EXPECT_TRUE(slots.acquire(3));
  EXPECT_FALSE(slots.acquire(2));
  std::vector<char> running;
  slots.running(running);
  EXPECT_EQ(running, (std::vector<char>{0, 0, 1, 1}));
}

EngineParams lora_params(std::int64_t max_loras, double load_ms) {
  EngineParams p;
  p.max_num_seqs = 8;
  p.max_num_batched_tokens = 512;
  p.kv_cache_tokens = 1 << 16;
  p.block_size = 16;
  p.step_overhead_ms = 10.0;
  p.prefill_us_per_token = 0;
  p.decode_us_per_seq = 0;
  p.decode_us_per_kv_token = 0;
  p.watermark = 0;
  p.lora_adapters = 8;
  p.max_loras = max_loras;
  p.lora_load_ms = load_ms;
  return p;
}

EngineRequest lora_request(std::uint64_t id, std::int32_t lora, std::int64_t output,
                           ModelNanos arrival) {
  EngineRequest r;
  r.id = id;
  r.tag = static_cast<std::uint32_t>(id);
  r.prompt_tokens = 16;
  r.output_tokens = output;
  r.arrival = arrival;
  r.lora = lora;
  return r;
}

struct CycleResult {
  std::int64_t loads = 0;
  ModelNanos ttft_sum = 0;
};

// 16 requests one after the other, round robin over `adapters` adapters.
CycleResult cycle(std::int64_t adapters) {
  EngineModel engine(lora_params(2, 50));
  CycleResult out;
  ModelNanos t = 0;
  for (std::uint64_t id = 0; id < 16; ++id) {
    engine.add(lora_request(id, static_cast<std::int32_t>(id % adapters), 2, t));
    bool first = true;
    while (engine.has_work()) {
      const StepOutcome& o = engine.step(t);
      out.loads += o.lora_loads;
      if (first) out.ttft_sum += o.end - t;
      first = false;
      t = o.end;
    }
  }
  return out;
}

TEST(SimLoraTest, CyclingThroughMoreAdaptersThanSlotsCostsLoads) {
  const CycleResult two = cycle(2);
  const CycleResult eight = cycle(8);
  EXPECT_EQ(two.loads, 2);     // both fit: loaded once each
  EXPECT_EQ(eight.loads, 16);  // every request finds its adapter evicted
  EXPECT_EQ(two.ttft_sum, 16 * 10 * kMs + 2 * 50 * kMs);
  EXPECT_EQ(eight.ttft_sum, 16 * 10 * kMs + 16 * 50 * kMs);
}

TEST(SimLoraTest, AtMostMaxLorasRunAndOthersPass) {
  EngineModel engine(lora_params(2, 0));
  engine.add(lora_request(0, 0, 5, 0));
  engine.add(lora_request(1, 1, 5, 0));
  engine.add(lora_request(2, 2, 5, 0));   // both slots in use: waits
  engine.add(lora_request(3, -1, 5, 0));  // the base model passes it
  engine.add(lora_request(4, 1, 5, 0));   // adapter 1 is loaded: passes it too
  engine.step(0);
  EXPECT_EQ(engine.num_running(), 4);
  EXPECT_EQ(engine.num_waiting(), 1);
  std::vector<char> waiting;
  engine.waiting_loras(waiting);
  EXPECT_EQ(waiting[2], 1);
  ModelNanos t = 0;
  std::vector<char> running;
  while (engine.has_work()) {
    t = engine.step(t).end;
    engine.lora().running(running);
    std::int64_t distinct = 0;
    for (const char r : running) distinct += r;
    EXPECT_LE(distinct, 2);
  }
}

SimConfig lora_server_config(std::int64_t adapters) {
  SimConfig c;
  c.port = 0;
  c.seed = 3;
  c.mode = TimingMode::kEngine;
  c.time_scale = 10;
  c.engine = lora_params(2, 50);
  c.engine.lora_adapters = adapters;
  return c;
}

std::string chat(const std::string& model, int max_tokens, bool stream) {
  return R"({"model":")" + model +
         R"(","messages":[{"role":"user","content":"a b c d"}],"ignore_eos":true,"max_tokens":)" +
         std::to_string(max_tokens) + R"(,"stream":)" + (stream ? "true" : "false") + "}";
}

testing::PromText scrape(std::uint16_t port) {
  TestConnection conn(port);
  conn.send_request("GET", "/metrics");
  return testing::parse_prom_text(conn.read_reply().body);
}

// Sum of TTFTs (real seconds, from /metrics) of 8 requests in turn, round robin over `cycle`
// adapters of 8, and the loads counted.
std::pair<double, double> serve_cycle(std::int64_t cycle_len) {
  auto server = testing::start_server(lora_server_config(8));
  TestConnection conn(server->port());
  for (int i = 0; i < 8; ++i) {
    conn.send_request("POST", "/v1/chat/completions",
                      chat("lora-" + std::to_string(i % cycle_len), 2, false));
    EXPECT_EQ(conn.read_reply().status, 200);
  }
  const auto prom = scrape(server->port());
  return {prom.at("vllm:time_to_first_token_seconds_sum{model_name=\"sim-model\"}"),
          prom.at("tokenbench_sim:lora_loads_total{model_name=\"sim-model\"}")};
}

TEST(SimLoraServerTest, TtftRisesWithAdaptersPastMaxLoras) {
  const auto [ttft2, loads2] = serve_cycle(2);
  const auto [ttft8, loads8] = serve_cycle(8);
  EXPECT_EQ(loads2, 2);
  EXPECT_EQ(loads8, 8);
  // Six more loads of 50 ms model time, 5 ms real at --time-scale 10: 30 ms more TTFT in all.
  EXPECT_GT(ttft8 - ttft2, 0.025) << ttft2 << " vs " << ttft8;
}

TEST(SimLoraServerTest, ModelsListAdaptersAndUnknownOnesAre404) {
  auto server = testing::start_server(lora_server_config(3));
  TestConnection conn(server->port());
  conn.send_request("GET", "/v1/models");
  const json models = json::parse(conn.read_reply().body);
  ASSERT_EQ(models["data"].size(), 4u);
  EXPECT_EQ(models["data"][0]["id"], "sim-model");
  EXPECT_EQ(models["data"][3]["id"], "lora-2");
  EXPECT_EQ(models["data"][3]["root"], "lora-2");
  EXPECT_EQ(models["data"][3]["parent"], "sim-model");
  conn.send_request("POST", "/v1/chat/completions", chat("lora-3", 2, false));
  EXPECT_EQ(conn.read_reply().status, 404);
  conn.send_request("POST", "/v1/chat/completions", chat("lora-1", 2, false));
  const HttpReply ok = conn.read_reply();
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(json::parse(ok.body)["usage"]["completion_tokens"], 2);
}

TEST(SimLoraServerTest, RequestsInfoNamesAtMostMaxLorasRunning) {
  auto server = testing::start_server(lora_server_config(8));
  std::vector<std::unique_ptr<TestConnection>> conns;
  for (int a = 3; a <= 5; ++a) {
    conns.push_back(std::make_unique<TestConnection>(server->port()));
    conns.back()->send_request("POST", "/v1/chat/completions",
                               chat("lora-" + std::to_string(a), 400, true));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto prom = scrape(server->port());
  EXPECT_EQ(prom.types.at("vllm:lora_requests_info"), "gauge");
  const std::string series =
      "vllm:lora_requests_info{max_lora=\"2\",running_lora_adapters=\"lora-3,lora-4\","
      "waiting_lora_adapters=\"lora-5\"}";
  ASSERT_EQ(prom.samples.count(series), 1u);
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_NEAR(prom.at(series), now, 5.0);
  for (auto& c : conns) EXPECT_EQ(c->read_reply().status, 200);
  const auto after = scrape(server->port());
  EXPECT_EQ(after.at("tokenbench_sim:lora_loads_total{model_name=\"sim-model\"}"), 3);
}

}  // namespace
}  // namespace tokenbench::sim
