// part2data cpu: one loop, one core.
//   run:  build/chapters/04-particle-mesh/part2data --stage cpu
//   test: meson test -C build particle-mesh-part2data-cpu --print-errorlogs
// One loop over the particles, the reference of the other stages. Per particle it reads 12 bytes
// (x, y, z) and writes 4 (the cell index): the whole job is streaming memory around three float
// divisions.
#include "particle_mesh.h"

namespace {

void run(const Mesh& m, int np, const float* pos, int* data) {
  // EXERCISE: data[p] = the cell of particle p (cell_index in particle_mesh.h), for every particle
  for (int p = 0; p < np; ++p) data[p] = cell_index(m, pos[3 * p], pos[3 * p + 1], pos[3 * p + 2]);
}

}  // namespace

const Part2DataCode part2data_cpu{run};
