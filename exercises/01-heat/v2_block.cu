// Exercise skeleton generated from solutions/01-heat/v2_block.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// heat v2: the same kernel, launched with blocks of {64,8,1}.
//   run:  build-ex/chapters/01-heat/heat3d --stage v1,v2
//   test: meson test -C build-ex heat-v2 --print-errorlogs
// Change from v1: only the block shape. 512 threads a block instead of 32.
// Why it should help: a multiprocessor can now be filled (4 blocks make its 2048 threads),
// and the 8 rows of a block share their y-neighbours through L1 instead of fetching them
// again from L2; 64 floats make 256 contiguous bytes, whole cache lines, per row.
// What still limits it: each thread loads 7 values for 1 result; the z-neighbours (a whole
// plane away) are reused only if they survive in L2 until the next plane's blocks run.
#include "check.h"
#include "heat.h"

namespace {

// TODO(exercise): the block shape of this stage: {64, 8, 1} (x, y, z) instead of v1's {32, 1, 1}
constexpr dim3 kBlock{32, 1, 1};

__global__ void heat_kernel(HeatGrid g, float coeff, const float* in, float* out) {
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

const HeatCode heat_v2{steps_of<step>, kBlock};
