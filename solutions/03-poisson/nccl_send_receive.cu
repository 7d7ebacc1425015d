// poisson nccl: rows split over GPUs, NCCL.
//   run:  build/chapters/03-poisson/jacobi nccl 16384 1000 --parts 2
//   test: meson test -C build poisson-nccl --print-errorlogs
// The same split as multi, with the halo rows exchanged by NCCL send/receive instead of peer
// copies. The code is the same for GPUs of one machine (here, one process driving every GPU)
// and, with one process per GPU started by MPI (jacobi_mpi), of several machines.
// Change from multi: the transport is NCCL's choice (NVLink, PCIe, or the network); the rest of
// the iteration is multi's, word for word.
// What still limits it: NCCL needs one GPU per block, and a send/receive pair per neighbour
// and iteration costs more fixed time than a peer copy.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "poisson_nccl.h"

namespace {

// Each block sends its new edge rows to the blocks below and above (NCCL ranks index - 1 and
// index + 1) and receives theirs into its halos, on its edge stream. comms[i] is the
// communicator of held block i, whose rank is that block's index.
void exchange_halos(RowBlocks& grid, int t, const std::vector<ncclComm_t>& comms) {
  std::vector<RowBlock>& blocks = grid.held();
  const size_t w = size_t(grid.width());
  const int last = grid.count() - 1;
  // EXERCISE: in one NCCL group, each block sends its new first row (local row 1 of out(t)) to the
  //   block below it (index - 1) and its new last row to the block above (index + 1), and receives
  //   into its halos of out(t): the top halo (local row rows + 1) from above, row 0 from below
  NCCL_CHECK(ncclGroupStart());
  for (size_t i = 0; i < blocks.size(); ++i) {
    RowBlock& block = blocks[i];
    double* out = block.out(t);
    if (block.index > 0) {
      NCCL_CHECK(ncclSend(out + w, w, ncclDouble, block.index - 1, comms[i], block.edge));
      NCCL_CHECK(ncclRecv(out, w, ncclDouble, block.index - 1, comms[i], block.edge));
    }
    if (block.index < last) {
      NCCL_CHECK(ncclSend(out + block.rows * w, w, ncclDouble, block.index + 1, comms[i], block.edge));
      NCCL_CHECK(ncclRecv(out + (block.rows + 1) * w, w, ncclDouble, block.index + 1, comms[i], block.edge));
    }
  }
  NCCL_CHECK(ncclGroupEnd());
}

struct Communicators {  // one process, every block's GPU: ranks 0 .. n-1 in block order
  std::vector<ncclComm_t> comms;
  explicit Communicators(const std::vector<RowBlock>& blocks) {
    setenv("NCCL_NVLS_ENABLE", "0", 0);  // NVLink multicast stays off on shared machines
    std::vector<int> devices;
    for (const RowBlock& block : blocks) devices.push_back(block.device);
    comms.resize(blocks.size());
    NCCL_CHECK(ncclCommInitAll(comms.data(), int(comms.size()), devices.data()));
  }
  ~Communicators() {
    for (ncclComm_t comm : comms) ncclCommDestroy(comm);
  }
};

SolveResult solve(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  int gpus = 0;
  CUDA_CHECK(cudaGetDeviceCount(&gpus));
  const int blocks = std::max(1, std::min(o.parts, p.grid.N));
  if (blocks > gpus)
    throw std::invalid_argument(std::to_string(blocks) + " blocks need as many GPUs, and " + std::to_string(gpus) +
                                " are visible");
  RowBlocks grid(p, u, o);
  const Communicators nccl(grid.held());
  return nccl_iterate(grid, nccl.comms, u, o.max_iterations);
}

}  // namespace

SolveResult nccl_iterate(RowBlocks& grid, const std::vector<ncclComm_t>& comms, std::vector<double>& u,
                         int iterations) {
  std::vector<RowBlock>& blocks = grid.held();
  const size_t n = blocks.size();
  grid.start_clock();
  for (int t = 0; t < iterations; ++t) {
    for (size_t q = 0; q < n; ++q) {  // 1. the edge rows, on each block's edge stream
      RowBlock& block = blocks[q];
      CUDA_CHECK(cudaSetDevice(block.device));
      if (t > 0) {  // once iteration t - 1 is done with what they read and overwrite:
        CUDA_CHECK(cudaStreamWaitEvent(block.edge, block.inner_done, 0));  // its inner rows, their neighbours
        if (q > 0) CUDA_CHECK(cudaStreamWaitEvent(block.edge, blocks[q - 1].edge_done, 0));  // the halo copies
        if (q + 1 < n) CUDA_CHECK(cudaStreamWaitEvent(block.edge, blocks[q + 1].edge_done, 0));
        CUDA_CHECK(cudaStreamWaitEvent(block.inner, block.edge_done, 0));  // the inner rows read the edge rows
      }
      grid.update_rows(block, t, 1, 1, block.edge);
      grid.update_rows(block, t, block.rows, block.rows > 1 ? 1 : 0, block.edge);
    }
    exchange_halos(grid, t, comms);  // 2. sent and received right behind them on the edge streams
    for (RowBlock& block : blocks) {  // 3. meanwhile, the inner rows on the inner streams
      CUDA_CHECK(cudaSetDevice(block.device));
      grid.update_rows(block, t, 2, block.rows - 2, block.inner);
      CUDA_CHECK(cudaEventRecord(block.edge_done, block.edge));
      CUDA_CHECK(cudaEventRecord(block.inner_done, block.inner));
    }
  }
  return grid.finish(u, iterations);
}

const PoissonCode poisson_nccl{solve};
