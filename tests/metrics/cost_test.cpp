// The cost figures: the deployment's price an hour over the run's throughputs.

#include "tokenbench/metrics/cost.h"

#include <gtest/gtest.h>

namespace tokenbench::metrics {
namespace {

TEST(Cost, PricePerUnitOfWorkIsThePricePerSecondOverTheRate) {
  Summary s;
  s.output_throughput = 1000;       // tok/s
  s.total_token_throughput = 5000;  // tok/s
  s.request_throughput = 2;         // req/s
  s.jobs = JobFigures{};
  s.jobs->jobs_per_s = 0.5;
  // $3.60 per GPU-hour on 2 GPUs: $7.20 an hour, $0.002 a second.
  const auto c = cost_figures(s, 3.6, 2);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->usd_per_hour, 7.2);
  EXPECT_DOUBLE_EQ(c->usd_per_million_output_tokens, 2.0);  // 0.002 / 1000 x 1e6
  EXPECT_DOUBLE_EQ(c->usd_per_million_total_tokens, 0.4);
  EXPECT_DOUBLE_EQ(c->usd_per_request, 0.001);
  EXPECT_DOUBLE_EQ(c->usd_per_job, 0.004);
}

TEST(Cost, NoPriceNoFiguresAndNoWorkNoUnitCost) {
  Summary s;
  s.output_throughput = 1000;
  EXPECT_FALSE(cost_figures(s, 0, 1));
  s.output_throughput = 0;  // nothing produced: no cost per token
  const auto c = cost_figures(s, 2.0, 1);
  ASSERT_TRUE(c);
  EXPECT_FALSE(is_defined(c->usd_per_million_output_tokens));
  EXPECT_FALSE(is_defined(c->usd_per_request));  // undefined throughput
  EXPECT_FALSE(is_defined(c->usd_per_job));      // not a job run
  EXPECT_DOUBLE_EQ(c->usd_per_hour, 2.0);
}

}  // namespace
}  // namespace tokenbench::metrics
