// Exercise skeleton generated from solutions/01-heat/v1_naive.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// heat v1: the first CUDA version, one thread per cell, a 3D grid of blocks of {32,1,1}.
//   run:  build-ex/chapters/01-heat/heat3d --stage v0,v1
//   test: meson test -C build-ex heat-v1 --print-errorlogs
// Change from v0: the three loops become the grid; each thread computes the indices of its
// own cell and, when the cell is interior, updates it exactly as v0 does.
// Why it helps: hundreds of thousands of cells are in flight at once instead of one.
// What still limits it: a block is one warp, and a multiprocessor holds at most 32 blocks,
// so it runs half as many threads as it could; the rows above and below a cell are loaded
// by other blocks, mostly on other multiprocessors, so little is reused from L1.
#include "check.h"
#include "heat.h"

namespace {

constexpr dim3 kBlock{32, 1, 1};  // one warp per block: the obvious first choice

__global__ void heat_kernel(HeatGrid g, float coeff, const float* in, float* out) {
  // TODO(exercise): map this thread to its cell (i, j, k); if the cell is interior, update it as v0 does
}

void step(const HeatGrid& g, float coeff, const float* in, float* out, dim3 block, cudaStream_t stream) {
  const dim3 grid(blocks_for(g.nx, block.x), blocks_for(g.ny, block.y), blocks_for(g.nz, block.z));
  heat_kernel<<<grid, block, 0, stream>>>(g, coeff, in, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

const HeatCode heat_v1{steps_of<step>, kBlock};
