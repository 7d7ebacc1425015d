// Exercise skeleton generated from solutions/04-particle-mesh/part2data_cpu_omp.cpp by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// part2data stage cpu_omp: the same loop shared among the cores with OpenMP. Particles are
// independent, so one pragma is the whole change; the limit becomes the CPU's memory bandwidth.
#include "particle_mesh.h"

namespace {

void run(const Mesh& m, int np, const float* pos, int* data, unsigned, cudaStream_t) {
  // TODO(exercise): the cpu stage's loop, shared among the threads by one OpenMP pragma
}

}  // namespace

const Part2DataStage part2data_cpu_omp = {"cpu_omp", "OpenMP over the particles", false, 0, run,
                                          PM_STAGE_FILE("part2data_cpu_omp.cpp")};
