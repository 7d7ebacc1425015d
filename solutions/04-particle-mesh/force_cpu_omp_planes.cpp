// force cpu_omp: OpenMP over the planes i.
//   run:  build/chapters/04-particle-mesh/force --stage cpu,cpu_omp
//   test: meson test -C build particle-mesh-force-cpu_omp particle-mesh-force-cpu_omp-idea --print-errorlogs
// The cpu stage's loop nest with its planes i shared among the cores by one OpenMP pragma. The
// limit becomes the CPU's memory bandwidth.
#include "particle_mesh.h"

namespace {

void run(const Mesh& m, int axis, const float* pot, float* f) {
  const int N = m.N, mask = N - 1;
  const int stride = axis == kAxisX ? N * N : axis == kAxisY ? N : 1;  // cells between neighbours
  const float two_dx = 2.0f * m.dx;
  // EXERCISE: the cpu stage's loop nest, its planes i shared among the threads by one OpenMP pragma
#pragma omp parallel for schedule(static)
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < N; ++k) {
        const int c = axis == kAxisX ? i : axis == kAxisY ? j : k;
        const int cell = (i * N + j) * N + k;
        f[cell] = (pot[cell + (((c + 1) & mask) - c) * stride] - pot[cell + (((c - 1) & mask) - c) * stride]) / two_dx;
      }
}

}  // namespace

const ForceCode force_cpu_omp{run, kEveryAxis};
