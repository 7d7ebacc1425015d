// heat v1: the first CUDA version, one thread per cell, a 3D grid of blocks of {32,1,1}.
//   run:  build/chapters/01-heat/heat3d --stage v0,v1
//   test: meson test -C build heat-v1 --print-errorlogs
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
  // EXERCISE: map this thread to its cell (i, j, k); if the cell is interior, update it as v0 does
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < 1 || j < 1 || k < 1 || i > g.nx - 2 || j > g.ny - 2 || k > g.nz - 2) return;
  const int row = g.nx, plane = g.nx * g.ny;
  const int c = (k * g.ny + j) * g.nx + i;
  out[c] = in[c] + coeff * ((in[c - 1] + in[c + 1]) + (in[c - row] + in[c + row]) +
                            (in[c - plane] + in[c + plane]) - 6.0f * in[c]);
}

void step(const HeatGrid& g, float coeff, const float* in, float* out, dim3 block, cudaStream_t stream) {
  const dim3 grid(blocks_for(g.nx, block.x), blocks_for(g.ny, block.y), blocks_for(g.nz, block.z));
  heat_kernel<<<grid, block, 0, stream>>>(g, coeff, in, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

const HeatCode heat_v1{steps_of<step>, kBlock};
