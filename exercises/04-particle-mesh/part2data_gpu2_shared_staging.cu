// Exercise skeleton generated from solutions/04-particle-mesh/part2data_gpu2_shared_staging.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// part2data gpu2: staged through shared memory.
//   run:  build-ex/chapters/04-particle-mesh/part2data --stage cpu,gpu1,gpu2
//   test: meson test -C build-ex particle-mesh-part2data-gpu2 particle-mesh-part2data-gpu2-idea --print-errorlogs
// The block first copies its particles' 3 * blockDim floats into shared memory, thread t loading
// floats t, t + blockDim, t + 2 blockDim: consecutive threads, consecutive addresses (coalesced).
// After a barrier each thread reads its x, y, z from shared memory: floats 3t, 3t + 1, 3t + 2, a
// stride of 3 words, which no two threads of a warp share a bank with (3 and 32 have no common
// factor).
// The last block stages only the floats that exist, and only its real particles write. A full
// block loads its three floats per thread in straight-line code, so that all three loads are in
// flight at once; a loop whose loads go straight to shared memory keeps one in flight per thread.
// What still limits it: the round trip through shared memory and the barrier, on a GPU whose
// L1 already absorbs gpu1's strided loads (the lesson measures both).
#include "check.h"
#include "particle_mesh.h"

namespace {

constexpr unsigned kBlock = 256;  // threads per block: 8 warps

__global__ void staged_in_shared_memory(Mesh m, int np, const float* pos, int* data) {
  extern __shared__ float staged[];  // 3 * blockDim.x floats, sized at the launch
  // TODO(exercise): stage this block's floats (fewer in the last block) into `staged` with coalesced
  //   loads, wait for the whole block, then compute each particle's cell from shared memory
}

void run(const Mesh& m, int np, const float* pos, int* data, unsigned block, cudaStream_t stream) {
  if (np == 0) return;
  staged_in_shared_memory<<<blocks_for(np, block), block, 3 * block * sizeof(float), stream>>>(m, np, pos, data);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

const Part2DataCode part2data_gpu2{run, kBlock};
