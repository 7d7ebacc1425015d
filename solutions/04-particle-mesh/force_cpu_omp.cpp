// Force stage cpu_omp: the cpu stage's loop nest with its planes i shared among the cores by
// one OpenMP pragma. The limit becomes the CPU's memory bandwidth.
#include "particle_mesh.h"

namespace {

void run(const Mesh& m, int axis, const float* pot, float* f, int, cudaStream_t) {
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
  // END EXERCISE
}

}  // namespace

const ForceStage force_cpu_omp = {"cpu_omp", "OpenMP over the planes i", false, 0b111, run, PM_STAGE_FILE("force_cpu_omp.cpp")};
