// Force stage gpu-z: forcez, threads along k. Along z the neighbours k - 1 and k + 1 are the
// next threads' own values: a warp's three loads fall in the same few sectors, shifted by one
// float, and the L1 cache serves the shifted ones. Only the two ends of a row wrap, to the
// other end of the same row.
#include <stdexcept>

#include "check.h"
#include "particle_mesh.h"

namespace {

__global__ void threads_along_k(int N, float two_dx, const float* __restrict__ pot, float* __restrict__ fz) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y, i = blockIdx.z;
  // EXERCISE: if k < N: fz at (i, j, k) from pot at (i, j, k + 1) and (i, j, k - 1), k wrapped with & (N - 1)
  if (k >= N) return;
  const int mask = N - 1, row = (i * N + j) * N;
  fz[row + k] = (pot[row + ((k + 1) & mask)] - pot[row + ((k - 1) & mask)]) / two_dx;
  // END EXERCISE
}

void run(const Mesh& m, int axis, const float* pot, float* f, int, cudaStream_t stream) {
  if (axis != kAxisZ) throw std::invalid_argument("force stage gpu-z computes forcez only");
  const unsigned block = m.N < 256 ? m.N : 256;
  threads_along_k<<<dim3(blocks_for(m.N, block), m.N, m.N), block, 0, stream>>>(m.N, 2.0f * m.dx, pot, f);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

const ForceStage forcez_gpu = {"gpu-z", "forcez, threads along k", true, 1u << kAxisZ, run,
                               PM_STAGE_FILE("forcez_gpu.cu")};
