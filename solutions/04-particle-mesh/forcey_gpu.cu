// Force stage gpu-y: forcey, threads along k (coalesced) and, in a block, 4 rows j. Along y the
// two neighbours are a row (N floats) apart: rows that the block's other threads, or the next
// block's, read anyway. The caches serve the second and third reads of a row, so the plain
// mapping needs no register marching.
#include <stdexcept>

#include "check.h"
#include "particle_mesh.h"

namespace {

__global__ void threads_along_k(int N, float two_dx, const float* __restrict__ pot, float* __restrict__ fy) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y, i = blockIdx.z;
  // EXERCISE: if k and j are inside the mesh: fy at (i, j, k) from pot at (i, j + 1, k) and
  //   (i, j - 1, k), j wrapped with & (N - 1)
  if (k >= N || j >= N) return;
  const int mask = N - 1, row = i * N;
  fy[(row + j) * N + k] = (pot[(row + ((j + 1) & mask)) * N + k] - pot[(row + ((j - 1) & mask)) * N + k]) / two_dx;
  // END EXERCISE
}

void run(const Mesh& m, int axis, const float* pot, float* f, int, cudaStream_t stream) {
  if (axis != kAxisY) throw std::invalid_argument("force stage gpu-y computes forcey only");
  const dim3 block(m.N < 128 ? m.N : 128, m.N < 4 ? m.N : 4);
  threads_along_k<<<dim3(blocks_for(m.N, block.x), blocks_for(m.N, block.y), m.N), block, 0, stream>>>(
      m.N, 2.0f * m.dx, pot, f);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

const ForceStage forcey_gpu = {"gpu-y", "forcey, threads along k", true, 1u << kAxisY, run,
                               PM_STAGE_FILE("forcey_gpu.cu")};
