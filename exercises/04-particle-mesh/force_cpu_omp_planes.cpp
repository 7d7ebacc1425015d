// Exercise skeleton generated from solutions/04-particle-mesh/force_cpu_omp_planes.cpp by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// force cpu_omp: OpenMP over the planes i.
//   run:  build-ex/chapters/04-particle-mesh/force --stage cpu,cpu_omp
//   test: meson test -C build-ex particle-mesh-force-cpu_omp particle-mesh-force-cpu_omp-idea --print-errorlogs
// The cpu stage's loop nest with its planes i shared among the cores by one OpenMP pragma. The
// limit becomes the CPU's memory bandwidth.
#include "particle_mesh.h"

namespace {

void run(const Mesh& m, int axis, const float* pot, float* f) {
  const int N = m.N, mask = N - 1;
  const int stride = axis == kAxisX ? N * N : axis == kAxisY ? N : 1;  // cells between neighbours
  const float two_dx = 2.0f * m.dx;
  // TODO(exercise): the cpu stage's loop nest, its planes i shared among the threads by one OpenMP pragma
}

}  // namespace

const ForceCode force_cpu_omp{run, kEveryAxis};
