// Exercise skeleton generated from solutions/04-particle-mesh/force_gpu_k_interchange.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// force gpu_k: threads along k, one cell each (interchange).
//   run:  build-ex/chapters/04-particle-mesh/force --stage cpu,gpu_k
//   test: meson test -C build-ex particle-mesh-force-gpu_k --print-errorlogs
// Loop interchange alone. Threads run along k, the fastest axis, for any axis of the difference,
// one cell per thread: every load and store of a warp is 128 consecutive bytes (for z, shifted by
// one float, which the L1 cache absorbs: the shifted sectors are the ones the warp's own row brings
// in). Each thread loads its two neighbours itself, so a plane (x) or row (y) is read twice from
// memory unless a cache still holds it.
#include "check.h"
#include "particle_mesh.h"

namespace {

__global__ void threads_along_k(int N, int step, float two_dx, const float* __restrict__ pot, float* __restrict__ f) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y, i = blockIdx.z;
  // TODO(exercise): if (j, k) is inside the mesh: f at (i, j, k) = (pot one step up - pot one step down) / two_dx,
  //   where the step along the axis is `step` cells and the coordinate c along it wraps with & (N - 1)
}

void run(const Mesh& m, int axis, const float* pot, float* f, int, cudaStream_t stream) {
  const int step = axis == kAxisX ? m.N * m.N : axis == kAxisY ? m.N : 1;
  const dim3 block(m.N < 256 ? m.N : 256, m.N < 4 ? m.N : 4);
  threads_along_k<<<dim3(blocks_for(m.N, block.x), blocks_for(m.N, block.y), m.N), block, 0, stream>>>(
      m.N, step, 2.0f * m.dx, pot, f);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

const ForceCode force_gpu_k{run, kEveryAxis};
