// force gpu1: forcex, thread along i (uncoalesced).
//   run:  build/chapters/04-particle-mesh/force --stage cpu,gpu1 --axis x
//   test: meson test -C build particle-mesh-force-gpu1 --print-errorlogs
// Forcex as the slides first port it: the thread index runs along i, the slowest axis. The 32
// threads of a warp read 32 values one plane (N^2 floats) apart, and write 32 values as far apart:
// every access is its own 32-byte sector, of which 4 bytes are used. The neighbouring k, which
// would use the rest of each sector, belongs to another block that may run much later, by which
// time the sector may have left the cache.
#include <stdexcept>

#include "check.h"
#include "particle_mesh.h"

namespace {

__global__ void thread_along_i(int N, float two_dx, const float* pot, float* fx) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y, k = blockIdx.z;
  // EXERCISE: if i < N: fx at (i, j, k) from pot at (i + 1, j, k) and (i - 1, j, k), i wrapped with & (N - 1)
  if (i >= N) return;
  const int mask = N - 1;
  fx[(i * N + j) * N + k] = (pot[(((i + 1) & mask) * N + j) * N + k] - pot[(((i - 1) & mask) * N + j) * N + k]) / two_dx;
}

void run(const Mesh& m, int axis, const float* pot, float* f, int, cudaStream_t stream) {
  if (axis != kAxisX) throw std::invalid_argument("force stage gpu1 computes forcex only");
  const unsigned block = m.N < 256 ? m.N : 256;
  thread_along_i<<<dim3(blocks_for(m.N, block), m.N, m.N), block, 0, stream>>>(m.N, 2.0f * m.dx, pot, f);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

const ForceCode force_gpu1{run, 1u << kAxisX};
