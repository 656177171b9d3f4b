// nvidia-smi's CSV lines and a DCGM exporter's exposition read into GPU samples.

#include "tokenbench/telemetry/gpu_sample.h"

#include <gtest/gtest.h>

namespace tokenbench::telemetry {
namespace {

TEST(NvidiaSmiLine, ReadsEveryColumn) {
  const auto r = parse_nvidia_smi_line(
      "0, GPU-1a2b, NVIDIA H100 80GB HBM3, 87, 40512, 81559, 512.34, 1980, 61, 550.54.15", 42);
  ASSERT_TRUE(r.sample) << r.error;
  const GpuSample& s = *r.sample;
  EXPECT_EQ(s.t, 42);
  EXPECT_EQ(s.index, 0);
  EXPECT_EQ(s.uuid, "GPU-1a2b");
  EXPECT_EQ(s.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(s.driver, "550.54.15");
  EXPECT_EQ(s.util_pct, 87);
  EXPECT_EQ(s.mem_used_mib, 40512);
  EXPECT_EQ(s.mem_total_mib, 81559);
  EXPECT_DOUBLE_EQ(*s.power_w, 512.34);
  EXPECT_EQ(s.sm_clock_mhz, 1980);
  EXPECT_EQ(s.temp_c, 61);
}

TEST(NvidiaSmiLine, ALineCapturedFromAnH200) {
  // nvidia-smi 580.159.04 with kNvidiaSmiQuery, -lms 200, on an idle H200.
  const auto r = parse_nvidia_smi_line(
      "0, GPU-7900793a-26d2-8fc4-d520-e62edfd0eec6, NVIDIA H200, 0, 0, 143771, 79.56, 345, 32, "
      "580.159.04",
      1);
  ASSERT_TRUE(r.sample) << r.error;
  EXPECT_EQ(r.sample->uuid, "GPU-7900793a-26d2-8fc4-d520-e62edfd0eec6");
  EXPECT_EQ(r.sample->name, "NVIDIA H200");
  EXPECT_EQ(r.sample->mem_total_mib, 143771);
  EXPECT_DOUBLE_EQ(*r.sample->power_w, 79.56);
  EXPECT_EQ(r.sample->sm_clock_mhz, 345);
  EXPECT_EQ(r.sample->driver, "580.159.04");
}

TEST(NvidiaSmiLine, NotAvailableValuesAreAbsent) {
  const auto r = parse_nvidia_smi_line(
      "3, [N/A], Tesla T4, [Not Supported], 100, 15360, [N/A], N/A, 40, [N/A]\r", 7);
  ASSERT_TRUE(r.sample) << r.error;
  EXPECT_EQ(r.sample->index, 3);
  EXPECT_EQ(r.sample->uuid, "");
  EXPECT_EQ(r.sample->driver, "");
  EXPECT_FALSE(r.sample->util_pct);
  EXPECT_FALSE(r.sample->power_w);
  EXPECT_FALSE(r.sample->sm_clock_mhz);
  EXPECT_EQ(r.sample->mem_used_mib, 100);
  EXPECT_EQ(r.sample->temp_c, 40);
}

TEST(NvidiaSmiLine, NineColumnsWithoutTheDriverAndACommaInTheName) {
  const auto nine = parse_nvidia_smi_line("1, GPU-x, A100, 5, 6, 7, 8.5, 9, 10", 0);
  ASSERT_TRUE(nine.sample) << nine.error;
  EXPECT_EQ(nine.sample->name, "A100");
  EXPECT_EQ(nine.sample->driver, "");
  EXPECT_EQ(nine.sample->temp_c, 10);
  const auto comma = parse_nvidia_smi_line("2, GPU-y, Odd, Name, 5, 6, 7, 8, 9, 10, 535.1", 0);
  ASSERT_TRUE(comma.sample) << comma.error;
  EXPECT_EQ(comma.sample->name, "Odd,Name");
  EXPECT_EQ(comma.sample->util_pct, 5);
  EXPECT_EQ(comma.sample->driver, "535.1");
}

TEST(NvidiaSmiLine, MalformedLinesAreErrorsNamingTheLine) {
  for (const char* line :
       {"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
        "x, GPU-1, H100, 1, 2, 3, 4, 5, 6, 7", "0, GPU-1, H100, busy, 2, 3, 4, 5, 6, 7",
        "-1, GPU-1, H100, 1, 2, 3, 4, 5, 6, 7", "0.5, GPU-1, H100, 1, 2, 3, 4, 5, 6, 7",
        "0, GPU-1, H100, 1, 2, 3, inf, 5, 6, 7", "0, 1, 2", ""}) {
    const auto r = parse_nvidia_smi_line(line, 0);
    EXPECT_FALSE(r.sample) << line;
    EXPECT_NE(r.error.find("nvidia-smi: '"), std::string::npos) << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos);
  }
}

TEST(DcgmExporter, MapsTheNamesAndLabelsOntoSamples) {
  // As dcgm-exporter writes it (names and labels from its default counters file).
  const char* text = R"(# HELP DCGM_FI_DEV_SM_CLOCK SM frequency (in MHz).
# TYPE DCGM_FI_DEV_SM_CLOCK gauge
DCGM_FI_DEV_SM_CLOCK{gpu="0",UUID="GPU-aaa",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1",DCGM_FI_DRIVER_VERSION="550.54.15"} 1980
DCGM_FI_DEV_SM_CLOCK{gpu="1",UUID="GPU-bbb",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 1755
# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-aaa",modelName="NVIDIA H100 80GB HBM3"} 61
DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-bbb",modelName="NVIDIA H100 80GB HBM3"} 58
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-aaa"} 512.5
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-bbb"} 300
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-aaa"} 87
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-bbb"} 12
# TYPE DCGM_FI_DEV_FB_FREE gauge
DCGM_FI_DEV_FB_FREE{gpu="0",UUID="GPU-aaa"} 41047
DCGM_FI_DEV_FB_FREE{gpu="1",UUID="GPU-bbb"} 81000
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-aaa"} 40512
DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-bbb"} 559
# TYPE DCGM_FI_DEV_MEM_COPY_UTIL gauge
DCGM_FI_DEV_MEM_COPY_UTIL{gpu="0",UUID="GPU-aaa"} 40
DCGM_FI_DEV_GPU_UTIL{UUID="GPU-no-index"} 99
)";
  const auto samples = gpu_samples_from_dcgm(parse_exposition(text), 123);
  ASSERT_EQ(samples.size(), 2u);
  const GpuSample& a = samples[0];
  EXPECT_EQ(a.t, 123);
  EXPECT_EQ(a.index, 0);
  EXPECT_EQ(a.uuid, "GPU-aaa");
  EXPECT_EQ(a.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(a.driver, "550.54.15");
  EXPECT_EQ(a.util_pct, 87);
  EXPECT_EQ(a.mem_used_mib, 40512);
  EXPECT_EQ(a.mem_total_mib, 40512 + 41047);
  EXPECT_EQ(a.power_w, 512.5);
  EXPECT_EQ(a.sm_clock_mhz, 1980);
  EXPECT_EQ(a.temp_c, 61);
  const GpuSample& b = samples[1];
  EXPECT_EQ(b.index, 1);
  EXPECT_EQ(b.uuid, "GPU-bbb");
  EXPECT_EQ(b.mem_total_mib, 81559);
  EXPECT_EQ(b.util_pct, 12);
  EXPECT_EQ(b.power_w, 300);
}

TEST(DcgmExporter, AnExpositionWithoutDcgmNamesHasNoSamples) {
  EXPECT_TRUE(gpu_samples_from_dcgm(parse_exposition("vllm:num_requests_running 3\n"), 0).empty());
}

TEST(GpuSampleJson, RoundTrips) {
  GpuSample s;
  s.t = 1'500'000'000;
  s.index = 1;
  s.uuid = "GPU-1";
  s.name = "NVIDIA A10";
  s.driver = "535.1";
  s.util_pct = 50;
  s.power_w = 140.25;
  s.temp_c = 55;
  const auto j = gpu_sample_to_json(s);
  EXPECT_EQ(j["type"], "gpu");
  EXPECT_TRUE(j["mem_used_mib"].is_null());
  const GpuSample back = gpu_sample_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back.t, s.t);
  EXPECT_EQ(back.index, 1);
  EXPECT_EQ(back.uuid, "GPU-1");
  EXPECT_EQ(back.name, "NVIDIA A10");
  EXPECT_EQ(back.driver, "535.1");
  EXPECT_EQ(back.util_pct, 50);
  EXPECT_EQ(back.power_w, 140.25);
  EXPECT_FALSE(back.mem_used_mib);
  EXPECT_THROW(gpu_sample_from_json(nlohmann::json{{"type", "gpu"}}), std::runtime_error);
}

}  // namespace
}  // namespace tokenbench::telemetry
