// Exercise skeleton generated from solutions/04-particle-mesh/part2data_gpu1_strided.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// part2data gpu1: thread per particle, strided loads.
//   run:  build-ex/chapters/04-particle-mesh/part2data --stage cpu,gpu1
//   test: meson test -C build-ex particle-mesh-part2data-gpu1 --print-errorlogs
// One thread per particle, each reading its own x, y and z, as the slides' naive kernel does.
// Neighbouring threads read floats 12 bytes apart: each of the three loads of a warp touches 384
// bytes of which it uses 128 (the "unaligned access" of the slides). GPUs of 2007 fetched those as
// separate transactions; a GPU with an L1 cache keeps the lines, so the second and third loads find
// them there.
#include "check.h"
#include "particle_mesh.h"

namespace {

constexpr unsigned kBlock = 256;  // threads per block: 8 warps

__global__ void one_particle_per_thread(Mesh m, int np, const float* pos, int* data) {
  // TODO(exercise): this thread's particle p; if p < np, data[p] = its cell from pos[3p], pos[3p+1], pos[3p+2]
}

void run(const Mesh& m, int np, const float* pos, int* data, unsigned block, cudaStream_t stream) {
  if (np == 0) return;
  one_particle_per_thread<<<blocks_for(np, block), block, 0, stream>>>(m, np, pos, data);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

const Part2DataCode part2data_gpu1{run, kBlock};
