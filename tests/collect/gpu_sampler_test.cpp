// The GPU sampler against a fake nvidia-smi (a shell script): lines stamped and parsed, bad ones
// counted, and the child always ended and reaped, even when it ignores SIGTERM.

#include "tokenbench/collect/gpu_sampler.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../support/fake_nvidia_smi.h"
#include "tokenbench/collect/child_process.h"

namespace tokenbench::collect {
namespace {

using std::chrono::milliseconds;

std::string temp_dir(const std::string& name) {
  const std::string dir =
      ::testing::TempDir() + "tokenbench-gpu-" + std::to_string(getpid()) + "-" + name;
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(GpuSampler, ReadsTheLoopAndCountsBadLines) {
  const std::string smi =
      testing::write_fake_nvidia_smi(temp_dir("loop"), "garbage line\\n", false);
  const core::RunClock clock;
  auto sampler = GpuSampler::nvidia_smi(0.05, clock, smi);
  ASSERT_TRUE(sampler->wait_for_sample_after(core::kNever, milliseconds(5000)));
  const core::Nanos later = clock.now();
  ASSERT_TRUE(sampler->wait_for_sample_after(later, milliseconds(5000)));
  const auto start = std::chrono::steady_clock::now();
  sampler->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(2000));
  const auto samples = sampler->samples();
  ASSERT_GE(samples.size(), 4u);
  EXPECT_EQ(samples[0].index, 0);
  EXPECT_EQ(samples[1].index, 1);
  EXPECT_EQ(samples[0].name, "Fake GPU 80GB");
  EXPECT_EQ(samples[1].power_w, 300);
  EXPECT_EQ(samples[0].driver, "999.01");
  EXPECT_GT(samples.back().t, later);
  for (std::size_t i = 1; i < samples.size(); ++i) EXPECT_LE(samples[i - 1].t, samples[i].t);
  const telemetry::GpuSamplerInfo info = sampler->info();
  EXPECT_EQ(info.source, "nvidia-smi");
  EXPECT_EQ(info.failed_samples, 1);
  EXPECT_NE(info.first_error.find("'garbage line'"), std::string::npos) << info.first_error;
}

TEST(GpuSampler, AnEarlyExitIsRecordedNotFatal) {
  const std::string dir = temp_dir("exit");
  const std::string smi = dir + "/nvidia-smi";
  {
    std::ofstream out(smi);
    out << "#!/bin/sh\necho \"NVIDIA-SMI has failed because it couldn't communicate with the "
           "NVIDIA driver.\"\nexit 9\n";
  }
  ::chmod(smi.c_str(), 0755);
  const core::RunClock clock;
  auto sampler = GpuSampler::nvidia_smi(0.05, clock, smi);
  EXPECT_FALSE(sampler->wait_for_sample_after(core::kNever, milliseconds(5000)));
  sampler->stop();
  const telemetry::GpuSamplerInfo info = sampler->info();
  EXPECT_EQ(info.failed_samples, 2);  // the message line, then the exit
  EXPECT_NE(info.first_error.find("NVIDIA-SMI has failed"), std::string::npos) << info.first_error;
  EXPECT_TRUE(sampler->samples().empty());
}

TEST(ChildProcess, AChildThatIgnoresSigtermIsKilledAndReaped) {
  const std::string smi = testing::write_fake_nvidia_smi(temp_dir("stubborn"), "", true);
  ChildProcess child({smi, "-lms", "50"});
  const pid_t pid = child.pid();
  ASSERT_GT(pid, 0);
  std::this_thread::sleep_for(milliseconds(100));  // the trap is set
  const auto start = std::chrono::steady_clock::now();
  const auto status = child.terminate(milliseconds(200));
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(2000));
  ASSERT_TRUE(status);
  EXPECT_TRUE(WIFSIGNALED(*status));
  EXPECT_EQ(WTERMSIG(*status), SIGKILL);
  // Reaped: no such process (not even a zombie) and its group is gone.
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
  EXPECT_FALSE(child.terminate());  // idempotent
}

TEST(ChildProcess, FindsProgramsOnPath) {
  EXPECT_TRUE(find_on_path("sh"));
  EXPECT_FALSE(find_on_path("tokenbench-no-such-program"));
  EXPECT_FALSE(find_on_path(""));
  EXPECT_THROW(ChildProcess({"/nonexistent/nvidia-smi"}), std::runtime_error);
}

}  // namespace
}  // namespace tokenbench::collect
