// part2data cpu_omp: OpenMP over the particles.
//   run:  build/chapters/04-particle-mesh/part2data --stage cpu,cpu_omp
//   test: meson test -C build particle-mesh-part2data-cpu_omp particle-mesh-part2data-cpu_omp-idea --print-errorlogs
// The same loop shared among the cores with OpenMP. Particles are independent, so one pragma is the
// whole change; the limit becomes the CPU's memory bandwidth.
#include "particle_mesh.h"

namespace {

void run(const Mesh& m, int np, const float* pos, int* data) {
  // EXERCISE: the cpu stage's loop, shared among the threads by one OpenMP pragma
#pragma omp parallel for schedule(static)
  for (int p = 0; p < np; ++p) data[p] = cell_index(m, pos[3 * p], pos[3 * p + 1], pos[3 * p + 2]);
}

}  // namespace

const Part2DataCode part2data_cpu_omp{run};
