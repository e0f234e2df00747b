#pragma once
// The MPI runner of `dpx run` (built with -DDPX_WITH_MPI=ON; docs/scaling.md).

#include "dpx/harness/preset.hpp"
#include "dpx/harness/runner.hpp"

namespace dpx::cli {

/// True when this process was started by an MPI launcher with more than one rank (OpenMPI's
/// OMPI_COMM_WORLD_SIZE, PMI_SIZE, or PMIX_RANK with the size found at MPI_Init).
bool mpi_launched();

/// Runs a preset over MPI_COMM_WORLD: rank 0 hands out blocks dynamically (one message per
/// block), computes with its own threads too and writes every file exactly as the serial
/// runner; the other ranks compute the blocks they are given with opts.threads threads
/// (default 1 per rank) and send back the block CSV and sidecar. Returns the exit status of
/// `dpx run`. A worker's fatal error stops the run (finished blocks saved, exit 1); a transport
/// failure on rank 0 calls MPI_Abort.
int run_mpi(const harness::preset& p, harness::run_options opts, bool threads_given, bool check);

}  // namespace dpx::cli
