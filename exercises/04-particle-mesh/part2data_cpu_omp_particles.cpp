// Exercise skeleton generated from solutions/04-particle-mesh/part2data_cpu_omp_particles.cpp by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// part2data cpu_omp: OpenMP over the particles.
//   run:  build-ex/chapters/04-particle-mesh/part2data --stage cpu,cpu_omp
//   test: meson test -C build-ex particle-mesh-part2data-cpu_omp particle-mesh-part2data-cpu_omp-idea --print-errorlogs
// The same loop shared among the cores with OpenMP. Particles are independent, so one pragma is the
// whole change; the limit becomes the CPU's memory bandwidth.
#include "particle_mesh.h"

namespace {

void run(const Mesh& m, int np, const float* pos, int* data) {
  // TODO(exercise): the cpu stage's loop, shared among the threads by one OpenMP pragma
}

}  // namespace

const Part2DataCode part2data_cpu_omp{run};
