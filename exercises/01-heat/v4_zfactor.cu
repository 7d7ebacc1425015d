// Exercise skeleton generated from solutions/01-heat/v4_zfactor.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// heat v4: each thread updates Z_FACTOR = 4 consecutive cells along z; blocks of {128,4,1}.
//   run:  build-ex/chapters/01-heat/heat3d --stage v3,v4
//   test: meson test -C build-ex heat-v4 --print-errorlogs
// Change from v3: a quarter of the threads, each marching up a short column of cells. The
// cell below, the cell itself and the cell above slide along the column in registers, so
// the column costs 4 + 2 loads of z-neighbours instead of 4 * 3.
// Why it should help: fewer loads per update, fewer threads to schedule, and more
// independent loads in flight per thread. 128 floats per row: 512 contiguous bytes.
// What still limits it: x- and y-neighbours are still loaded for every cell (from L1 at
// best), and a grid shrunk by 4 along z has fewer blocks to hide latency on small problems.
#include "check.h"
#include "heat.h"

namespace {

constexpr int Z_FACTOR = 4;
constexpr dim3 kBlock{128, 4, 1};  // 128 floats per row: 512 contiguous bytes

__global__ void heat_kernel(const HeatGrid g, const float coeff, const float* __restrict__ in,
                            float* __restrict__ out) {
  // TODO(exercise): update the (up to) Z_FACTOR interior cells k_first, k_first + 1, ... of column
  //   (i, j), carrying the cells below, at and above the current one in registers
}

void step(const HeatGrid& g, float coeff, const float* in, float* out, dim3 block, cudaStream_t stream) {
  const int interior_z = g.nz > 2 ? g.nz - 2 : 0;
  const dim3 grid(blocks_for(g.nx, block.x), blocks_for(g.ny, block.y), blocks_for(interior_z, block.z * Z_FACTOR));
  if (grid.z == 0) return;  // no interior cell: nothing to launch (a grid of 0 blocks is an error)
  heat_kernel<<<grid, block, 0, stream>>>(g, coeff, in, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

const HeatCode heat_v4{steps_of<step>, kBlock};
