// poisson multi: rows split over GPUs, peer copies.
//   run:  build/chapters/03-poisson/jacobi multi 16384 1000 --parts 2
//   test: meson test -C build poisson-multi --print-errorlogs
// The grid split by rows across the GPUs (the report's section 2.3). Each GPU updates its rows;
// after each iteration it sends its first and last new rows to its neighbours' halos with
// peer-to-peer copies (NVLink where there is one).
// Change from gpu2: several GPUs, so several memories' bandwidth. The edge rows are updated
// first on their own stream and their copies start at once, while the other stream updates
// the inner rows: the exchange hides behind the computation.
// What still limits it: one halo row per neighbour per iteration, and one launch per stream
// per iteration: small grids cannot hide them.
#include "check.h"
#include "poisson_rows.h"

namespace {

// Each block's new first row goes into the bottom halo of the block above it, and its new
// last row into the top halo of the block below, on the block's edge stream.
void exchange_halos(RowBlocks& grid, int t) {
  std::vector<RowBlock>& blocks = grid.held();
  const size_t w = size_t(grid.width());
  for (size_t q = 0; q < blocks.size(); ++q) {
    RowBlock& block = blocks[q];
    // EXERCISE: on block.edge, copy this block's new first row (local row 1 of out(t)) into the
    //   block above's bottom halo (its local row rows + 1), and its new last row (local row rows)
    //   into the block below's top halo (local row 0), with cudaMemcpyPeerAsync
    if (q > 0) {
      RowBlock& above = blocks[q - 1];
      CUDA_CHECK(cudaMemcpyPeerAsync(above.out(t) + (above.rows + 1) * w, above.device, block.out(t) + w,
                                     block.device, grid.row_bytes(), block.edge));
    }
    if (q + 1 < blocks.size()) {
      RowBlock& below = blocks[q + 1];
      CUDA_CHECK(cudaMemcpyPeerAsync(below.out(t), below.device, block.out(t) + block.rows * w, block.device,
                                     grid.row_bytes(), block.edge));
    }
  }
}

SolveResult solve(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  RowBlocks grid(p, u, o);
  std::vector<RowBlock>& blocks = grid.held();
  const size_t n = blocks.size();
  grid.start_clock();
  for (int t = 0; t < o.max_iterations; ++t) {
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
    exchange_halos(grid, t);  // 2. their copies, queued right behind them on the edge streams
    for (RowBlock& block : blocks) {  // 3. meanwhile, the inner rows on the inner streams
      CUDA_CHECK(cudaSetDevice(block.device));
      grid.update_rows(block, t, 2, block.rows - 2, block.inner);
      CUDA_CHECK(cudaEventRecord(block.edge_done, block.edge));
      CUDA_CHECK(cudaEventRecord(block.inner_done, block.inner));
    }
  }
  return grid.finish(u, o.max_iterations);
}

}  // namespace

const PoissonCode poisson_multi{solve};
