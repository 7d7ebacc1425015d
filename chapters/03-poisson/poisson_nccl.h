// The nccl stage's halo exchange, shared by the stage (one process, every GPU of a machine)
// and poisson_mpi (one process per GPU, on one or several machines).
#pragma once
#include <nccl.h>

#include <string>
#include <vector>

#include "check.h"
#include "poisson_parts.h"

#define NCCL_CHECK(call)                                                                            \
  do {                                                                                              \
    const ncclResult_t nccl_status_ = (call);                                                       \
    if (nccl_status_ != ncclSuccess)                                                                \
      throw tut::CudaError(cudaErrorUnknown, std::string("NCCL error: ") + #call + " failed at " +  \
                                                 __FILE__ + ":" + std::to_string(__LINE__) + ": " + \
                                                 ncclGetErrorString(nccl_status_));                 \
  } while (0)

// Sends each held block's new edge rows to the blocks above and below (NCCL ranks index - 1
// and index + 1) and receives their rows into its halos of out(t). comms[i] is the
// communicator of partition.parts()[i], whose NCCL rank is that block's index.
void nccl_exchange(Partition& partition, int t, const std::vector<ncclComm_t>& comms);
