// The verdict's rule (metrics/verdict.h) and the read-lag check it reads (read_lag_check.h).

#include "tokenbench/metrics/verdict.h"

#include <gtest/gtest.h>

namespace tokenbench::metrics {
namespace {

// A streamed run of ITL p50 1 ms, TTFT p50 20 ms with a short tail, a client reading within
// 0.05 ms of the kernel, workers at 40 % CPU.
VerdictInputs healthy_run() {
  VerdictInputs in;
  in.read_lag.measured = true;
  in.read_lag.overall = {10000, 0.02, 0.05, 0.3};
  in.itl_p50_ms = 1.0;
  in.itl_p99_ms = 1.3;
  in.ttft_p50_ms = 20;
  in.ttft_p99_ms = 30;
  in.ttft_mean_ms = 21;
  in.send_lag_p99_ms = 0.1;
  in.cpu_peak_pct = 40;
  in.workers = 1;
  return in;
}

TEST(Verdict, HealthyWhenNoOneHeldTheRunBack) {
  const Verdict v = judge(healthy_run());
  EXPECT_EQ(v.bound, "healthy");
  EXPECT_FALSE(v.client_bound());
  EXPECT_TRUE(v.remedy.empty());
  EXPECT_NE(v.line().find("read on time"), std::string::npos) << v.line();
}

TEST(Verdict, ClientBoundByReadLagOverOneItlNamesTheRemedy) {
  VerdictInputs in = healthy_run();
  in.read_lag.overall.p99_ms = 3.5;  // the client read the p99 token 3.5 ITLs late
  in.read_lag.late_chunk_share = 0.12;
  const Verdict v = judge(in);
  EXPECT_EQ(v.bound, "client-bound");
  ASSERT_EQ(v.evidence.size(), 1U);
  EXPECT_NE(v.evidence[0].find("read lag p99 3.5 ms over one ITL (1 ms)"), std::string::npos)
      << v.evidence[0];
  EXPECT_NE(v.evidence[0].find("12.0% of chunks read late"), std::string::npos);
  EXPECT_EQ(v.remedy.rfind("give the client more worker threads (--workers 2)", 0), 0u) << v.remedy;
  EXPECT_NE(v.remedy.find("mpirun"), std::string::npos);
  // Even with the server queueing: a late client makes every figure suspect, so it comes first.
  in.server = true;
  in.queue_mean_ms = 15;
  EXPECT_EQ(judge(in).bound, "client-bound");
}

TEST(Verdict, ClientBoundBySaturatedCpuOrLateSends) {
  VerdictInputs cpu = healthy_run();
  cpu.cpu_peak_pct = 95;
  cpu.workers = 4;
  const Verdict a = judge(cpu);
  EXPECT_EQ(a.bound, "client-bound");
  EXPECT_NE(a.remedy.find("--workers 8"), std::string::npos);
  VerdictInputs starved = healthy_run();
  starved.cpu_wait_peak_pct = 60;  // another process held the worker's core
  const Verdict w = judge(starved);
  EXPECT_EQ(w.bound, "client-bound");
  EXPECT_EQ(w.evidence.at(0), "a worker waited for a CPU 60% of its worst second");
  EXPECT_EQ(w.remedy.rfind("give the client a core of its own", 0), 0u) << w.remedy;
  // The chunks read late corroborate a client-bound verdict, and are never a reason alone.
  starved.read_lag.late_chunk_share = 0.25;
  EXPECT_EQ(judge(starved).evidence.at(1), "25.0% of chunks read late");
  VerdictInputs merged = healthy_run();
  merged.read_lag.late_chunk_share = 0.9;  // a server writing several events at once
  EXPECT_EQ(judge(merged).bound, "healthy");
  starved.cpu_wait_peak_pct = 5;
  EXPECT_EQ(judge(starved).bound, "healthy");
  VerdictInputs send = healthy_run();
  send.send_lag_p99_ms = 12;  // over 5 ms and a tenth of TTFT p50
  EXPECT_EQ(judge(send).bound, "client-bound");
  send.ttft_p50_ms = 500;  // a tenth of TTFT p50 is 50 ms: 12 ms of send lag is within it
  EXPECT_EQ(judge(send).bound, "healthy");
}

TEST(Verdict, ReadLagNotMeasuredNeverCountsAsZeroOrAsLate) {
  VerdictInputs in = healthy_run();
  in.read_lag = ReadLagCheck{};
  in.read_lag.not_measured = "not measured: --stamps user";
  const Verdict v = judge(in);
  EXPECT_EQ(v.bound, "healthy");
  EXPECT_NE(v.line().find("read lag not measured"), std::string::npos) << v.line();
}

TEST(Verdict, ServerBoundByQueueingWithItsEvidence) {
  VerdictInputs in = healthy_run();
  in.ttft_p50_ms = 200;
  in.ttft_p99_ms = 900;
  in.ttft_mean_ms = 300;
  in.server = true;
  in.queue_mean_ms = 240;
  in.waiting_mean = 6.5;
  in.waiting_max = 12;
  in.running_mean = 4;
  const Verdict v = judge(in);
  EXPECT_EQ(v.bound, "server-bound");
  EXPECT_EQ(v.kind, "queueing");
  EXPECT_NE(v.line().find("server queue time mean 240 ms of TTFT mean 300 ms (80%)"),
            std::string::npos)
      << v.line();
  EXPECT_NE(v.line().find("6.5 requests waiting on average (max 12), 4.0 running"),
            std::string::npos);
  // Waiting requests alone are queueing too.
  in.queue_mean_ms = kUndefined;
  EXPECT_EQ(judge(in).kind, "queueing");
}

TEST(Verdict, NetworkOrFrameworkWhenTtftIsOutsideTheServersAccount) {
  VerdictInputs in = healthy_run();
  in.server = true;
  in.queue_mean_ms = 0.5;
  in.waiting_mean = 0;
  in.ttft_overhead_ms = 12;  // of 21 ms: 57 %
  const Verdict v = judge(in);
  EXPECT_EQ(v.bound, "network or framework");
  EXPECT_NE(v.line().find("12 ms of TTFT mean 21 ms (57%)"), std::string::npos) << v.line();
  in.ttft_overhead_ms = 1.5;  // under 2 ms: not worth naming
  EXPECT_EQ(judge(in).bound, "healthy");
}

TEST(Verdict, ServerBoundByComputeOnALongTailWithoutQueueing) {
  VerdictInputs in = healthy_run();
  in.ttft_p99_ms = 100;  // 5x p50
  EXPECT_EQ(judge(in).bound, "server-bound");
  EXPECT_EQ(judge(in).kind, "queueing or compute");  // no server telemetry
  in.server = true;
  in.waiting_mean = 0.1;
  in.server_ttft_mean_ms = 19;
  in.server_itl_mean_ms = 0.9;
  EXPECT_EQ(judge(in).kind, "compute");
}

TEST(ReadLagCheck, FromWorkersLogsAndWhyNotMeasured) {
  std::vector<core::ReadLagLog> logs(2);
  for (int i = 0; i < 99; ++i) logs[0].total.add(20'000);
  logs[0].total.add(4'000'000);
  for (int i = 0; i < 100; ++i) logs[1].total.add(30'000);
  logs[1].windows.push_back({1'000'000'000, 100, 30'000, 30'000, 30'000});
  logs[0].windows.push_back({1'000'000'000, 100, 20'000, 4'000'000, 4'000'000});
  const ReadLagCheck c = read_lag_check(logs, {{"kernel", 40}}, 0.5, 4);
  ASSERT_TRUE(c.measured);
  EXPECT_EQ(c.overall.reads, 200U);
  EXPECT_NEAR(c.overall.max_ms, 4.0, 1e-12);
  ASSERT_EQ(c.workers.size(), 2U);
  EXPECT_GE(c.workers[1].p50_ms, 0.030);
  EXPECT_LE(c.workers[1].p50_ms, 0.030 * 17 / 16);
  EXPECT_NEAR(c.late_chunk_share, 0.125, 1e-12);
  EXPECT_NEAR(c.worst_window_p99_ms, 4.0, 1e-12);
  nlohmann::json client = {
      {"workers", nlohmann::json::array({nlohmann::json::object(), nlohmann::json::object()})}};
  add_read_lag_json(c, client);
  EXPECT_EQ(client["read_lag"], "measured");
  EXPECT_EQ(client["read_lag_reads"], 200);
  EXPECT_EQ(client["workers"][1]["read_lag_reads"], 100);
  EXPECT_NE(render_read_lag(c).find("max 4.000 ms over 200 reads; 12.5% of chunks"),
            std::string::npos)
      << render_read_lag(c);

  const ReadLagCheck user = read_lag_check({}, {{"user", 40}}, 0, 0);
  EXPECT_FALSE(user.measured);
  EXPECT_NE(user.not_measured.find("--stamps user"), std::string::npos);
  nlohmann::json none = nlohmann::json::object();
  add_read_lag_json(user, none);
  EXPECT_TRUE(none["read_lag_p99_ms"].is_null());  // never 0
  EXPECT_NE(render_read_lag(user).find("not measured"), std::string::npos);
  EXPECT_NE(read_lag_check({}, {{"kernel", 3}}, 0, 0).not_measured.find("distributed"),
            std::string::npos);
}

}  // namespace
}  // namespace tokenbench::metrics
