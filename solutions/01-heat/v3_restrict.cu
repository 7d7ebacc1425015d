// heat v3: v2 with const and __restrict__ on the kernel's parameters.
//   run:  build/chapters/01-heat/heat3d --stage v2,v3
//   test: meson test -C build heat-v3 heat-v3-idea --print-errorlogs
// Change from v2: `in` and `out` are declared never to alias, and the scalars const.
// Why it should help: `const float*` alone promises nothing (another pointer may write the
// same memory); __restrict__ does, so the compiler may keep loaded values in registers
// across the store and read `in` through the read-only (non-coherent) load path.
// What still limits it: each thread still loads 7 values for 1 result, and the z-neighbours
// are fetched from L2 again for every plane.
#include "check.h"
#include "heat.h"

namespace {

constexpr dim3 kBlock{64, 8, 1};  // v2's

// EXERCISE: v2's kernel, with const on the scalar parameters and __restrict__ on both pointers
__global__ void heat_kernel(const HeatGrid g, const float coeff, const float* __restrict__ in,
                            float* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < 1 || j < 1 || k < 1 || i > g.nx - 2 || j > g.ny - 2 || k > g.nz - 2) return;
  const int row = g.nx, plane = g.nx * g.ny;
  const int c = (k * g.ny + j) * g.nx + i;
  out[c] = in[c] + coeff * ((in[c - 1] + in[c + 1]) + (in[c - row] + in[c + row]) +
                            (in[c - plane] + in[c + plane]) - 6.0f * in[c]);
}
// SKELETON: __global__ void heat_kernel(HeatGrid g, float coeff, const float* in, float* out) {}

void step(const HeatGrid& g, float coeff, const float* in, float* out, dim3 block, cudaStream_t stream) {
  const dim3 grid(blocks_for(g.nx, block.x), blocks_for(g.ny, block.y), blocks_for(g.nz, block.z));
  heat_kernel<<<grid, block, 0, stream>>>(g, coeff, in, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

const HeatCode heat_v3{steps_of<step>, kBlock};
