// part2data stage cpu_omp: the same loop shared among the cores with OpenMP. Particles are
// independent, so one pragma is the whole change; the limit becomes the CPU's memory bandwidth.
#include "particle_mesh.h"

namespace {

void run(const Mesh& m, int np, const float* pos, int* data, unsigned, cudaStream_t) {
  // EXERCISE: the cpu stage's loop, shared among the threads by one OpenMP pragma
#pragma omp parallel for schedule(static)
  for (int p = 0; p < np; ++p) data[p] = cell_index(m, pos[3 * p], pos[3 * p + 1], pos[3 * p + 2]);
  // END EXERCISE
}

}  // namespace

const Part2DataStage part2data_cpu_omp = {"cpu_omp", "OpenMP over the particles", false, 0, run,
                                          PM_STAGE_FILE("part2data_cpu_omp.cpp")};
