// telemetry.jsonl and environment.json: written by a run, read back by `report` into the same
// notes, with scrape lines of older runs (no "type") still read.

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "tokenbench/records/results_dir.h"
#include "tokenbench/records/run_notes.h"

namespace tokenbench::records {
namespace {

std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "telemetry-file-" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(TelemetryFile, ScrapesGpuSamplesAndEdgesRoundTripInTimeOrder) {
  RunNotes notes;
  notes.scrape_sources.push_back({"h", "http://h/metrics", "replica", {}});
  notes.scrape_sources.push_back({"router", "http://r/metrics", "extra", {}});
  notes.measure_start = 100;
  notes.measure_end = 900;
  for (const core::Nanos t : {50, 500, 950}) {
    telemetry::Scrape s;
    s.t = t;
    s.label = "interval";
    s.ok = true;
    s.snapshot.running = 3;
    s.snapshot.spec = telemetry::SpecDecodeCounters{10, 30, 12, {7, 4, 1}, {}};
    notes.scrape_sources[0].scrapes.push_back(s);
  }
  telemetry::Scrape router;
  router.t = 450;
  router.label = "interval";
  router.ok = true;
  router.snapshot.lora = telemetry::LoraInfo{{"a", "b"}, {"c"}, 2};
  notes.scrape_sources[1].scrapes.push_back(router);
  for (const core::Nanos t : {10, 400, 600}) {
    telemetry::GpuSample g;
    g.t = t;
    g.index = 1;
    g.name = "GPU";
    g.power_w = 250.5;
    notes.gpu_samples.push_back(g);
  }
  telemetry::GpuSamplerInfo info;
  info.source = "nvidia-smi";
  info.interval_s = 0.5;
  info.failed_samples = 1;
  info.first_error = "bad line";
  notes.gpu_sampler = info;
  notes.gpu_shared = true;
  const std::string dir = fresh_dir("roundtrip");
  write_telemetry(dir, notes);

  std::vector<core::Nanos> order;
  std::istringstream lines(read_text_file(dir + "/" + kTelemetryFile));
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["type"] == "scrape" || j["type"] == "gpu") order.push_back(j["t_ns"]);
  }
  EXPECT_EQ(order, (std::vector<core::Nanos>{10, 50, 400, 450, 500, 600, 950}));

  const RunNotes back = read_telemetry(dir);
  ASSERT_EQ(back.scrape_sources.size(), 2u);
  EXPECT_EQ(back.scrape_sources[0].url, "http://h/metrics");
  EXPECT_EQ(back.scrape_sources[0].name, "h");
  EXPECT_EQ(back.scrape_sources[1].name, "router");
  EXPECT_EQ(back.scrape_sources[1].role, "extra");
  EXPECT_EQ(back.scrape_sources[1].scrapes.at(0).snapshot.lora,
            (telemetry::LoraInfo{{"a", "b"}, {"c"}, 2}));
  EXPECT_EQ(back.measure_start, 100);
  EXPECT_EQ(back.measure_end, 900);
  const auto& scrapes = back.scrape_sources[0].scrapes;
  ASSERT_EQ(scrapes.size(), 3u);
  EXPECT_EQ(scrapes[1].snapshot.running, 3);
  EXPECT_EQ(scrapes[1].snapshot.spec, (telemetry::SpecDecodeCounters{10, 30, 12, {7, 4, 1}, {}}));
  ASSERT_EQ(back.gpu_samples.size(), 3u);
  EXPECT_EQ(back.gpu_samples[2].t, 600);
  EXPECT_EQ(back.gpu_samples[2].power_w, 250.5);
  ASSERT_TRUE(back.gpu_sampler);
  EXPECT_EQ(back.gpu_sampler->failed_samples, 1);
  EXPECT_EQ(back.gpu_sampler->first_error, "bad line");
  EXPECT_TRUE(back.gpu_shared);
}

// Issue 32: each worker's read lag (its histogram and windows) round-trips, and a damaged line
// is refused naming what is wrong.
TEST(TelemetryFile, ReadLagRoundTripsPerWorker) {
  RunNotes notes;
  notes.read_lag.resize(2);
  for (int i = 0; i < 10; ++i) notes.read_lag[0].total.add(15'000 + i);
  notes.read_lag[0].total.add(3'000'000);
  notes.read_lag[0].windows.push_back(core::window_of(notes.read_lag[0].total, 250'000'000));
  notes.read_lag[1].total.add(40'000);
  notes.client_cpu = {{{0, 0, 0}, {250'000'000, 1'000, 5'000}}, {{0, 0, -1}, {250'000'000, 9, -1}}};
  const std::string dir = fresh_dir("read_lag");
  write_telemetry(dir, notes);
  const RunNotes back = read_telemetry(dir);
  // The workers' run-queue waits beside their CPU clocks (none written where unknown).
  ASSERT_EQ(back.client_cpu.size(), 2u);
  EXPECT_EQ(back.client_cpu[0][1].run_delay, 5'000);
  EXPECT_EQ(back.client_cpu[1][1].run_delay, -1);
  EXPECT_EQ(read_text_file(dir + "/" + kTelemetryFile).find("\"run_delay_ns\":[-1"),
            std::string::npos);
  ASSERT_EQ(back.read_lag.size(), 2u);
  EXPECT_EQ(back.read_lag[0].total.buckets(), notes.read_lag[0].total.buckets());
  EXPECT_EQ(back.read_lag[0].total.count(), 11u);
  EXPECT_EQ(back.read_lag[0].total.max(), 3'000'000);
  ASSERT_EQ(back.read_lag[0].windows.size(), 1u);
  EXPECT_EQ(back.read_lag[0].windows[0].end, 250'000'000);
  EXPECT_EQ(back.read_lag[0].windows[0].p99, notes.read_lag[0].windows[0].p99);
  EXPECT_EQ(back.read_lag[1].total.quantile(0.5), notes.read_lag[1].total.quantile(0.5));

  const auto refused = [&](const std::string& line) {
    write_text_file(dir + "/" + kTelemetryFile, line + "\n");
    try {
      read_telemetry(dir);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string windows =
      R"("windows":{"end_ns":[],"reads":[],"p50_ns":[],"p99_ns":[],"max_ns":[]})";
  EXPECT_NE(refused(R"({"type":"read_lag","max_ns":5,"buckets":[[9999,1]],)" + windows + "}")
                .find("bucket index 9999 is out of range"),
            std::string::npos);
  EXPECT_NE(refused(R"({"type":"read_lag","max_ns":5,"buckets":[[3,-1]],)" + windows + "}")
                .find("counts must be integers >= 0"),
            std::string::npos);
  EXPECT_NE(refused(R"({"type":"read_lag","max_ns":5,"buckets":[],"windows":{"end_ns":[1],)"
                    R"("reads":[],"p50_ns":[],"p99_ns":[],"max_ns":[]}})")
                .find("line 1: read_lag: windows' arrays"),
            std::string::npos);
}

TEST(TelemetryFile, OldScrapeLinesWithoutTypeAndUnknownTypesRead) {
  const std::string dir = fresh_dir("old");
  write_text_file(dir + "/" + kTelemetryFile,
                  "{\"t_ns\":5,\"label\":\"measure_start\",\"ok\":true,\"server\":\"vllm\","
                  "\"running\":2,\"url\":\"http://old/metrics\"}\n"
                  "{\"type\":\"something_new\",\"t_ns\":6}\n"
                  "{\"t_ns\":7,\"label\":\"measure_end\",\"ok\":false,\"error\":\"HTTP 503\"}\n");
  const RunNotes back = read_telemetry(dir);
  ASSERT_EQ(back.scrape_sources.size(), 2u);  // the second line names no URL
  EXPECT_EQ(back.scrape_sources[0].url, "http://old/metrics");
  EXPECT_EQ(back.scrape_sources[0].role, "replica");
  EXPECT_EQ(back.scrape_sources[0].scrapes.at(0).snapshot.running, 2);
  EXPECT_EQ(back.scrape_sources[1].scrapes.at(0).error, "HTTP 503");
  EXPECT_FALSE(back.gpu_sampler);
  EXPECT_EQ(back.measure_start, core::kNever);
  write_text_file(dir + "/" + kTelemetryFile, "{\"type\":\"gpu\",\"t_ns\":1}\n");
  EXPECT_THROW(read_telemetry(dir), std::runtime_error);
}

TEST(TelemetryFile, EnvironmentRoundTripsAndIsNullWhenAbsent) {
  const std::string dir = fresh_dir("environment");
  EXPECT_TRUE(read_environment(dir).is_null());
  const nlohmann::json env{{"host", "h"}, {"labels", {{"cuda", "12.4"}}}};
  write_environment(dir, env);
  EXPECT_EQ(read_environment(dir), env);
}

}  // namespace
}  // namespace tokenbench::records
