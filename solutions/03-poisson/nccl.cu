// Stage nccl: the same split as multi, with the halo rows exchanged by NCCL send/receive
// instead of peer copies. The code is the same for GPUs of one machine (here, one process
// driving every GPU) and, with one process per GPU started by MPI, of several machines.
// Change from multi: the transport is NCCL's choice (NVLink, PCIe, or the network).
// What still limits it: NCCL needs one GPU per part, and a send/receive pair per neighbour
// and iteration costs more fixed time than a peer copy.
#include <nccl.h>

#include <cstdlib>
#include <memory>
#include <string>

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

namespace {

struct Communicators {
  std::vector<ncclComm_t> comms;
  explicit Communicators(const std::vector<Part>& parts) {
    setenv("NCCL_NVLS_ENABLE", "0", 0);  // NVLink multicast stays off on shared machines
    std::vector<int> devices;
    for (const Part& part : parts) devices.push_back(part.device);
    comms.resize(parts.size());
    NCCL_CHECK(ncclCommInitAll(comms.data(), int(comms.size()), devices.data()));
  }
  ~Communicators() {
    for (ncclComm_t comm : comms) ncclCommDestroy(comm);
  }
};

SolveResult solve(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  std::unique_ptr<Communicators> nccl;
  const auto setup = [&](Partition& partition) { nccl = std::make_unique<Communicators>(partition.parts()); };
  const auto exchange = [&](Partition& partition, int t) {
    std::vector<Part>& parts = partition.parts();
    const int w = partition.width(), n = int(parts.size());
    // EXERCISE: in one NCCL group, each part sends its new first row (local row 1 of out(t)) to the
    //   part above and its new last row to the part below, and receives into its halos of out(t):
    //   the bottom halo (local row rows + 1) from below, the top halo (local row 0) from above
    NCCL_CHECK(ncclGroupStart());
    for (int q = 0; q < n; ++q) {
      Part& part = parts[q];
      double* out = part.out(t);
      if (q > 0) {
        NCCL_CHECK(ncclSend(out + w, w, ncclDouble, q - 1, nccl->comms[q], part.edge));
        NCCL_CHECK(ncclRecv(out, w, ncclDouble, q - 1, nccl->comms[q], part.edge));
      }
      if (q + 1 < n) {
        NCCL_CHECK(ncclSend(out + size_t(part.rows) * w, w, ncclDouble, q + 1, nccl->comms[q], part.edge));
        NCCL_CHECK(ncclRecv(out + size_t(part.rows + 1) * w, w, ncclDouble, q + 1, nccl->comms[q], part.edge));
      }
    }
    NCCL_CHECK(ncclGroupEnd());
    // END EXERCISE
  };
  return iterate_partitioned(p, u, o, true, exchange, setup);
}

}  // namespace

const PoissonStage poisson_nccl = {"nccl", "rows split over GPUs, NCCL", true, true, solve, POISSON_STAGE_FILE("nccl.cu")};
