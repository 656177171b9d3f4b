// measure::Cohort: one process alone, and the ranks of a distributed run over the session's
// protocol (here on threads' LocalComm, as tests/distributed does).
#include "tokenbench/measure/cohort.h"

#include <gtest/gtest.h>

#include <memory>

#include "../distributed/local_comm.h"
#include "tokenbench/core/run_config.h"
#include "tokenbench/distributed/merge.h"
#include "tokenbench/measure/rank_cohort.h"
#include "tokenbench/records/records_sink.h"

namespace tokenbench::measure {
namespace {

using records::RecordsCompression;

TEST(SingleProcess, LeadsAloneAndChangesNothing) {
  SingleProcess alone;
  EXPECT_TRUE(alone.leads());
  EXPECT_TRUE(alone.alone());
  EXPECT_EQ(alone.ranks_label(), "");
  EXPECT_EQ(alone.who(), "");
  core::RunConfig config;
  config.max_concurrency = 64;
  config.request_rate = 10;
  core::RunConfig own = config;
  alone.share(config, own);
  EXPECT_EQ(own.max_concurrency, 64);
  EXPECT_EQ(own.request_rate, 10);
  EXPECT_EQ(alone.records_file(RecordsCompression::kNone), "requests.jsonl");
  EXPECT_EQ(alone.records_file(RecordsCompression::kZstd), "requests.jsonl.zst");
  EXPECT_FALSE(alone.merge({}, core::RunClock{}, {}, false, {}).has_value());
}

TEST(SingleProcess, IsWhatAProcessNotStartedByMpirunJoins) {
  // No MPI launcher's variables in a test's environment: one process alone.
  const std::unique_ptr<Cohort> cohort = join_cohort();
  EXPECT_TRUE(cohort->leads());
  EXPECT_TRUE(cohort->alone());
}

TEST(RankCohort, TheLeaderIsRankZeroAndEachRankWritesItsOwnRecords) {
  distributed::testing::LocalWorld world(2);
  RankCohort leader(std::make_unique<distributed::testing::LocalComm>(world, 0));
  RankCohort follower(std::make_unique<distributed::testing::LocalComm>(world, 1));
  EXPECT_TRUE(leader.leads());
  EXPECT_FALSE(follower.leads());
  EXPECT_FALSE(leader.alone());
  EXPECT_FALSE(follower.alone());
  EXPECT_EQ(leader.who(), "");
  EXPECT_EQ(follower.who(), "rank 1: ");
  EXPECT_EQ(follower.records_file(RecordsCompression::kNone),
            distributed::rank_records_file(1, false));
  EXPECT_EQ(leader.records_file(RecordsCompression::kZstd),
            distributed::rank_records_file(0, true));
  EXPECT_NE(follower.records_file(RecordsCompression::kNone),
            leader.records_file(RecordsCompression::kNone));
}

}  // namespace
}  // namespace tokenbench::measure
