// part2data stage cpu: one loop over the particles, the reference of the other stages.
// Per particle it reads 12 bytes (x, y, z) and writes 4 (the cell index): the whole job is
// streaming memory around three float divisions.
#include "particle_mesh.h"

namespace {

void run(const Mesh& m, int np, const float* pos, int* data, unsigned, cudaStream_t) {
  // EXERCISE: data[p] = the cell of particle p (cell_index in particle_mesh.h), for every particle
  for (int p = 0; p < np; ++p) data[p] = cell_index(m, pos[3 * p], pos[3 * p + 1], pos[3 * p + 2]);
  // END EXERCISE
}

}  // namespace

const Part2DataStage part2data_cpu = {"cpu", "one loop, one core", false, 0, run, PM_STAGE_FILE("part2data_cpu.cpp")};
