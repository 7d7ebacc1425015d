// Exercise skeleton generated from solutions/04-particle-mesh/part2data_gpu3_float4.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// part2data gpu3: four particles per thread, float4 loads.
//   run:  build-ex/chapters/04-particle-mesh/part2data --stage cpu,gpu2,gpu3
//   test: meson test -C build-ex particle-mesh-part2data-gpu3 particle-mesh-part2data-gpu3-idea --print-errorlogs
// What one writes today. Each thread takes four particles: their 12
// floats are 48 bytes, three aligned float4 loads, and their four cells one int4 store. No
// shared memory and no barrier, and a quarter as many load instructions as gpu1. The array
// must start 16-byte aligned (cudaMalloc gives 256); a count that is not a multiple of 4
// leaves up to 3 particles, which the thread after the last group does one by one.
// (A structure-of-arrays layout, x[], y[] and z[] apart, coalesces with plain loads too, but
// changes the data layout of the whole code; vector loads keep it.)
#include <stdexcept>

#include "check.h"
#include "particle_mesh.h"

namespace {

constexpr unsigned kBlock = 256;  // threads per block: 8 warps

__global__ void four_particles_per_thread(Mesh m, int np, const float4* pos4, int4* data4) {
  // TODO(exercise): group g = this thread: particles 4g .. 4g + 3 from pos4[3g], pos4[3g + 1],
  //   pos4[3g + 2] (x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3) into data4[g]; the thread
  //   g == np / 4 does the up to 3 particles left, one by one
}

void run(const Mesh& m, int np, const float* pos, int* data, unsigned block, cudaStream_t stream) {
  if (np == 0) return;
  if (reinterpret_cast<uintptr_t>(pos) % 16 || reinterpret_cast<uintptr_t>(data) % 16)
    throw std::invalid_argument("part2data gpu3: pos and data must start on 16-byte boundaries (float4 loads)");
  const int threads = np / 4 + 1;  // one per group of four, one for the rest
  four_particles_per_thread<<<blocks_for(threads, block), block, 0, stream>>>(
      m, np, reinterpret_cast<const float4*>(pos), reinterpret_cast<int4*>(data));
  CUDA_CHECK_LAUNCH();
}

}  // namespace

const Part2DataCode part2data_gpu3{run, kBlock};
