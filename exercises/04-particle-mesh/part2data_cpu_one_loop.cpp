// Exercise skeleton generated from solutions/04-particle-mesh/part2data_cpu_one_loop.cpp by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// part2data cpu: one loop, one core.
//   run:  build-ex/chapters/04-particle-mesh/part2data --stage cpu
//   test: meson test -C build-ex particle-mesh-part2data-cpu --print-errorlogs
// One loop over the particles, the reference of the other stages. Per particle it reads 12 bytes
// (x, y, z) and writes 4 (the cell index): the whole job is streaming memory around three float
// divisions.
#include "particle_mesh.h"

namespace {

void run(const Mesh& m, int np, const float* pos, int* data) {
  // TODO(exercise): data[p] = the cell of particle p (cell_index in particle_mesh.h), for every particle
}

}  // namespace

const Part2DataCode part2data_cpu{run};
