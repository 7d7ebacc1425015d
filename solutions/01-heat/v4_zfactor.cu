// heat v4: each thread updates Z_FACTOR = 4 consecutive cells along z; blocks of {128,4,1}.
//   run:  build/chapters/01-heat/heat3d --stage v3,v4
//   test: meson test -C build heat-v4 --print-errorlogs
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
  // EXERCISE: update the (up to) Z_FACTOR interior cells k_first, k_first + 1, ... of column
  //   (i, j), carrying the cells below, at and above the current one in registers
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int k_first = 1 + (blockIdx.z * blockDim.z + threadIdx.z) * Z_FACTOR;  // interior cells only
  if (i < 1 || j < 1 || i > g.nx - 2 || j > g.ny - 2 || k_first > g.nz - 2) return;
  const int row = g.nx, plane = g.nx * g.ny;
  int c = (k_first * g.ny + j) * g.nx + i;
  float below = in[c - plane], centre = in[c];
#pragma unroll
  for (int dz = 0; dz < Z_FACTOR; ++dz) {
    if (k_first + dz > g.nz - 2) break;   // the last column may be short
    const float above = in[c + plane];
    out[c] = centre + coeff * ((in[c - 1] + in[c + 1]) + (in[c - row] + in[c + row]) + (below + above) -
                               6.0f * centre);
    below = centre;
    centre = above;
    c += plane;
  }
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
