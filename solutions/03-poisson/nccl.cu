// poisson nccl: rows split over GPUs, NCCL.
//   run:  build/chapters/03-poisson/jacobi nccl 16384 1000 --parts 2
//   test: meson test -C build poisson-nccl
// The same split as multi, with the halo rows exchanged by NCCL send/receive instead of peer
// copies. The code is the same for GPUs of one machine (here, one process driving every GPU) and,
// with one process per GPU started by MPI, of several machines.
// Change from multi: the transport is NCCL's choice (NVLink, PCIe, or the network).
// What still limits it: NCCL needs one GPU per part, and a send/receive pair per neighbour
// and iteration costs more fixed time than a peer copy.
#include <cstdlib>
#include <memory>

#include "poisson_nccl.h"

void nccl_exchange(Partition& partition, int t, const std::vector<ncclComm_t>& comms) {
  std::vector<Part>& parts = partition.parts();
  const int w = partition.width(), last = partition.total_parts() - 1;
  // EXERCISE: in one NCCL group, each block sends its new first row (local row 1 of out(t)) to the
  //   block below it (index - 1) and its new last row to the block above (index + 1), and receives
  //   into its halos of out(t): the top halo (local row rows + 1) from above, row 0 from below
  NCCL_CHECK(ncclGroupStart());
  for (size_t i = 0; i < parts.size(); ++i) {
    Part& part = parts[i];
    double* out = part.out(t);
    if (part.index > 0) {
      NCCL_CHECK(ncclSend(out + w, w, ncclDouble, part.index - 1, comms[i], part.edge));
      NCCL_CHECK(ncclRecv(out, w, ncclDouble, part.index - 1, comms[i], part.edge));
    }
    if (part.index < last) {
      NCCL_CHECK(ncclSend(out + size_t(part.rows) * w, w, ncclDouble, part.index + 1, comms[i], part.edge));
      NCCL_CHECK(ncclRecv(out + size_t(part.rows + 1) * w, w, ncclDouble, part.index + 1, comms[i], part.edge));
    }
  }
  NCCL_CHECK(ncclGroupEnd());
}

namespace {

struct Communicators {  // one process, every block's GPU: ranks 0 .. n-1 in block order
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
  const auto exchange = [&](Partition& partition, int t) { nccl_exchange(partition, t, nccl->comms); };
  return iterate_partitioned(p, u, o, Layout{o.parts, true}, exchange, setup);
}

}  // namespace

const PoissonCode poisson_nccl{solve};
