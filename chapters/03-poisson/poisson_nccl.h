// The nccl stage's iterations, shared by the stage (one process, every GPU of a machine) and
// jacobi_mpi (one process per GPU, on one or several machines).
#pragma once
#include <nccl.h>

#include <string>
#include <vector>

#include "check.h"
#include "poisson_rows.h"

#define NCCL_CHECK(call)                                                                            \
  do {                                                                                              \
    const ncclResult_t nccl_status_ = (call);                                                       \
    if (nccl_status_ != ncclSuccess)                                                                \
      throw tut::CudaError(cudaErrorUnknown, std::string("NCCL error: ") + #call + " failed at " +  \
                                                 __FILE__ + ":" + std::to_string(__LINE__) + ": " + \
                                                 ncclGetErrorString(nccl_status_));                 \
  } while (0)

// `iterations` Jacobi iterations over the held blocks, their halos exchanged by NCCL (comms[i]
// is held block i's communicator, whose rank is the block's index); then this process's rows
// are brought back into u. Defined in the nccl stage's file.
SolveResult nccl_iterate(RowBlocks& grid, const std::vector<ncclComm_t>& comms, std::vector<double>& u,
                         int iterations);
