#include "tokenbench/measure/cohort.h"

#include "tokenbench/distributed/mpi_comm.h"
#include "tokenbench/measure/rank_cohort.h"

namespace tokenbench::measure {

int SingleProcess::follow(Runner&, const core::RunConfig&) { return 0; }

std::unique_ptr<Cohort> join_cohort() {
  // Started by mpirun (or the MPI Operator): one rank of a distributed run.
  if (distributed::launched_ranks() > 1) {
    return std::make_unique<RankCohort>(distributed::join_mpi_world());
  }
  return std::make_unique<SingleProcess>();
}

}  // namespace tokenbench::measure
