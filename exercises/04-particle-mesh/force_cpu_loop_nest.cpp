// Exercise skeleton generated from solutions/04-particle-mesh/force_cpu_loop_nest.cpp by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// force cpu: one loop nest, k innermost.
//   run:  build-ex/chapters/04-particle-mesh/force --stage cpu
//   test: meson test -C build-ex particle-mesh-force-cpu --print-errorlogs
// F = (pot[next] - pot[previous]) / (2 dx) along one axis, the loop nest of the slides' forcex with
// the k loop innermost, so that f and pot stream through memory. Neighbours wrap with & (N - 1): N
// is a power of two, and in two's complement (0 - 1) & (N - 1) = N - 1, where (0 - 1) % N would be
// -1 in C++. The mask is one instruction; a general modulo (((i - 1) % N + N) % N) costs an integer
// division. The reference of the GPU stages, for all three axes.
#include "particle_mesh.h"

namespace {

void run(const Mesh& m, int axis, const float* pot, float* f) {
  const int N = m.N, mask = N - 1;
  const int stride = axis == kAxisX ? N * N : axis == kAxisY ? N : 1;  // cells between neighbours
  const float two_dx = 2.0f * m.dx;
  // TODO(exercise): every cell (i, j, k): the difference of its two neighbours along `axis`
  //   (c = i, j or k; neighbours c + 1 and c - 1, wrapped with & mask, `stride` cells apart), over 2 dx
}

}  // namespace

const ForceCode force_cpu{run, kEveryAxis};
