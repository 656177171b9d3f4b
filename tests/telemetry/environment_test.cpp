// The environment record's pure parts: /proc/cpuinfo, --label, trimming what servers say.

#include "tokenbench/telemetry/environment.h"

#include <gtest/gtest.h>

namespace tokenbench::telemetry {
namespace {

using nlohmann::json;

TEST(Environment, CpuModelFromCpuinfo) {
  const char* x86 =
      "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
      "model name\t: Intel(R) Xeon(R) Platinum 8480+\nstepping\t: 8\n\nprocessor\t: 1\n"
      "model name\t: Intel(R) Xeon(R) Platinum 8480+\n";
  EXPECT_EQ(cpu_model_from_cpuinfo(x86), "Intel(R) Xeon(R) Platinum 8480+");
  const char* arm =
      "processor\t: 0\nBogoMIPS\t: 2000.00\nCPU implementer\t: 0x41\n\n"
      "Hardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n";
  EXPECT_EQ(cpu_model_from_cpuinfo(arm), "BCM2835");
  EXPECT_EQ(cpu_model_from_cpuinfo(""), "");
  EXPECT_EQ(cpu_model_from_cpuinfo("model name\t:\nflags\t: fpu\n"), "");
}

TEST(Environment, Labels) {
  const auto labels = parse_labels({"cuda=12.4", "weights=rev=abc", "empty="});
  EXPECT_EQ(labels.at("cuda"), "12.4");
  EXPECT_EQ(labels.at("weights"), "rev=abc");  // the first '=' splits
  EXPECT_EQ(labels.at("empty"), "");
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{"cuda"}, {"=12.4"}, {"a=1", "a=2"}}) {
    try {
      parse_labels(bad);
      ADD_FAILURE() << bad.back();
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--label ", 0), 0u) << e.what();
    }
  }
}

TEST(Environment, TrimCutsStringsArraysDepthAndSizeAndHidesCredentials) {
  json props{{"chat_template", std::string(5000, 'x')},
             {"build_info", "b4567-abcdef"},
             {"total_slots", 4},
             {"stop", json::array()},
             {"api_key", "sk-secret"},
             {"hf_token", "hf_abc"},
             {"max_total_tokens", 4096},
             {"deep", {{"a", {{"b", {{"c", {{"d", 1}}}}}}}}}};
  for (int i = 0; i < 40; ++i) props["stop"].push_back(i);
  const json t = trim_json(props);
  const std::string tmpl = t["chat_template"];
  EXPECT_LT(tmpl.size(), 250u);
  EXPECT_NE(tmpl.find("... (5000 bytes)"), std::string::npos);
  EXPECT_EQ(t["build_info"], "b4567-abcdef");
  EXPECT_EQ(t["stop"].size(), 17u);
  EXPECT_EQ(t["stop"].back(), "... (24 more)");
  EXPECT_EQ(t["api_key"], "<redacted>");
  EXPECT_EQ(t["hf_token"], "<redacted>");
  EXPECT_EQ(t["max_total_tokens"], 4096);  // a count of tokens is not a credential
  EXPECT_EQ(t["deep"]["a"]["b"]["c"], "...");
  // A big object keeps its first keys, within the byte bound.
  json big;
  for (int i = 0; i < 500; ++i) big["key" + std::to_string(1000 + i)] = std::string(100, 'v');
  const json b = trim_json(big);
  EXPECT_TRUE(b["_truncated"].get<bool>());
  EXPECT_LE(b.dump().size(), 4096u + 100);
  EXPECT_TRUE(b.contains("key1000"));
}

TEST(Environment, DescribesAServerFromItsAnswers) {
  const std::string models =
      R"({"object":"list","data":[{"id":"meta-llama/Llama-3.1-8B","owned_by":"vllm",)"
      R"("max_model_len":8192},{"id":"lora-a"}]})";
  const json vllm =
      describe_server("http://h:8000", "uvicorn", models, {{"/version", R"({"version":"0.6.3"})"}});
  EXPECT_EQ(vllm["software"], "vLLM 0.6.3");
  EXPECT_EQ(vllm["server_header"], "uvicorn");
  ASSERT_EQ(vllm["models"].size(), 2u);
  EXPECT_EQ(vllm["models"][0]["id"], "meta-llama/Llama-3.1-8B");
  EXPECT_EQ(vllm["models"][0]["owned_by"], "vllm");
  EXPECT_EQ(vllm["models"][0]["max_model_len"], 8192);
  EXPECT_TRUE(vllm["models"][1]["max_model_len"].is_null());
  EXPECT_EQ(vllm["endpoints"]["/version"]["version"], "0.6.3");

  const json tgi = describe_server(
      "http://h", "", "not json",
      {{"/info", R"({"model_id":"x","version":"2.4.0"})"}, {"/version", "<html>not found</html>"}});
  EXPECT_EQ(tgi["software"], "TGI 2.4.0");
  EXPECT_FALSE(tgi["endpoints"].contains("/version"));  // not a JSON object
  EXPECT_TRUE(tgi["models"].empty());
  EXPECT_TRUE(tgi["server_header"].is_null());
  const json llama =
      describe_server("http://h", "llama.cpp", "", {{"/props", R"({"build_info":"b4567-abc"})"}});
  EXPECT_EQ(llama["software"], "llama.cpp b4567-abc");
  EXPECT_EQ(describe_server("http://h", "nginx", "", {})["software"], "nginx");
}

TEST(Environment, RecordRedactsAndRenders) {
  HostFacts h;
  h.host = "bench-1";
  h.os_sysname = "Linux";
  h.os_release = "6.1.0";
  h.os_machine = "x86_64";
  h.cpu_model = "AMD EPYC 9654";
  h.cpu_count = 192;
  const json server =
      describe_server("http://h", "", R"({"data":[{"id":"m","max_model_len":4096}]})",
                      {{"/version", R"({"version":"tokenbench-sim 0.1.0"})"}});
  std::vector<GpuSample> samples(2);
  samples[0].index = 0;
  samples[0].name = "NVIDIA H100";
  samples[0].driver = "550.54.15";
  samples[1].index = 1;
  samples[1].name = "NVIDIA H100";
  GpuSamplerInfo info;
  info.source = "nvidia-smi";
  const json e = environment_json(
      h, {"tokenbench", "run", "--header", "X-Api-Key: SECRET123"}, "2026-01-02T03:04:05Z", server,
      gpus_summary(samples, info), {{"cuda", "12.4"}}, [](std::string s) {
        for (auto p = s.find("SECRET123"); p != std::string::npos; p = s.find("SECRET123")) {
          s.replace(p, 9, "<redacted>");
        }
        return s;
      });
  EXPECT_EQ(e["host"], "bench-1");
  EXPECT_EQ(e["os"]["release"], "6.1.0");
  EXPECT_EQ(e["cpu"]["count"], 192);
  EXPECT_EQ(e["command_line"][3], "X-Api-Key: <redacted>");
  EXPECT_EQ(e["gpus"]["count"], 2);
  EXPECT_EQ(e["gpus"]["driver"], "550.54.15");
  EXPECT_EQ(e["labels"]["cuda"], "12.4");
  EXPECT_FALSE(e["tokenbench_version"].get<std::string>().empty());
  const std::string text = render_environment(e);
  EXPECT_NE(
      text.find("client   bench-1 (Linux 6.1.0 x86_64), AMD EPYC 9654, 192 CPUs, tokenbench "),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("server   tokenbench-sim 0.1.0; models: m (max_model_len 4096)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("GPUs     2 x NVIDIA H100, driver 550.54.15 (nvidia-smi)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("labels   cuda=12.4"), std::string::npos) << text;
  EXPECT_TRUE(gpus_summary({}, info).is_null());
}

}  // namespace
}  // namespace tokenbench::telemetry
