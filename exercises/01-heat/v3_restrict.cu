// Exercise skeleton generated from solutions/01-heat/v3_restrict.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// heat v3: v2 with const and __restrict__ on the kernel's parameters.
//   run:  build-ex/chapters/01-heat/heat3d --stage v2,v3
//   test: meson test -C build-ex heat-v3 heat-v3-idea --print-errorlogs
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

// TODO(exercise): v2's kernel, with const on the scalar parameters and __restrict__ on both pointers
__global__ void heat_kernel(HeatGrid g, float coeff, const float* in, float* out) {}

void step(const HeatGrid& g, float coeff, const float* in, float* out, dim3 block, cudaStream_t stream) {
  const dim3 grid(blocks_for(g.nx, block.x), blocks_for(g.ny, block.y), blocks_for(g.nz, block.z));
  heat_kernel<<<grid, block, 0, stream>>>(g, coeff, in, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

const HeatCode heat_v3{steps_of<step>, kBlock};
