// Exercise skeleton generated from solutions/04-particle-mesh/force_cpu_omp.cpp by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// Force stage cpu_omp: the cpu stage's loop nest with its planes i shared among the cores by
// one OpenMP pragma. The limit becomes the CPU's memory bandwidth.
#include "particle_mesh.h"

namespace {

void run(const Mesh& m, int axis, const float* pot, float* f, int, cudaStream_t) {
  const int N = m.N, mask = N - 1;
  const int stride = axis == kAxisX ? N * N : axis == kAxisY ? N : 1;  // cells between neighbours
  const float two_dx = 2.0f * m.dx;
  // TODO(exercise): the cpu stage's loop nest, its planes i shared among the threads by one OpenMP pragma
}

}  // namespace

const ForceStage force_cpu_omp = {"cpu_omp", "OpenMP over the planes i", false, 0b111, run, PM_STAGE_FILE("force_cpu_omp.cpp")};
