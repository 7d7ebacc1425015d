// Exercise skeleton generated from solutions/03-poisson/cpu_jacobi.cpp by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// poisson cpu: Jacobi, 1 core.
//   run:  build-ex/chapters/03-poisson/jacobi cpu 100 10000
//   test: meson test -C build-ex poisson-cpu --print-errorlogs
// Jacobi on one CPU core, the reference.
// What limits it: one core, and each update streams u and f from memory: 24 bytes for 6 flops.
#include "poisson.h"

namespace {

void step(const PoissonGrid& g, const double* f, const double* in, double* out) {
  const int w = g.width();
  const double h2 = g.h() * g.h();
  for (int r = 1; r <= g.N; ++r)
    for (int c = 1; c <= g.N; ++c) {
      // TODO(exercise): the Jacobi update of point (r, c): the mean of its 4 neighbours plus h^2 f / 4
    }
}

}  // namespace

const PoissonCode poisson_cpu{iterate_on_host<step>};
