#pragma once

#include <memory>
#include <string>

#include "tokenbench/distributed/comm.h"

namespace tokenbench::distributed {

/// Ranks the MPI launcher started this process among, read from the environment it sets
/// (OMPI_COMM_WORLD_SIZE for Open MPI's mpirun and the MPI Operator, PMI_SIZE or PMIX_SIZE for
/// others); 1 when no launcher started it.
int launched_ranks();

/// True when this build can run distributed (CMake's TOKENBENCH_MPI found Open MPI).
bool mpi_built();

/// The host name, for the ranks' table.
std::string host_name();

/// Joins the MPI world of a process started by mpirun: MPI_Init_thread (serialized), errors
/// returned rather than aborting, and a liveness thread that says "alive" to the peers twice a
/// second and counts a peer lost after kLostAfterSeconds of silence. close() (or destroying it)
/// finalizes MPI, or aborts the job when a peer was lost. Throws std::runtime_error, one line,
/// when this build has no MPI or MPI cannot start.
std::unique_ptr<Comm> join_mpi_world();

/// Silence after which a peer counts as lost.
inline constexpr int kLostAfterSeconds = 5;

}  // namespace tokenbench::distributed
