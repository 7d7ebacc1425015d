// poisson cpu: Jacobi, 1 core.
//   run:  build/chapters/03-poisson/jacobi cpu 100 10000
//   test: meson test -C build poisson-cpu --print-errorlogs
// Jacobi on one CPU core, the reference.
// What limits it: one core, and each update streams u and f from memory: 24 bytes for 6 flops.
#include "poisson.h"

namespace {

void step(const PoissonGrid& g, const double* f, const double* in, double* out) {
  const int w = g.width();
  const double h2 = g.h() * g.h();
  for (int r = 1; r <= g.N; ++r)
    for (int c = 1; c <= g.N; ++c) {
      // EXERCISE: the Jacobi update of point (r, c): the mean of its 4 neighbours plus h^2 f / 4
      const size_t at = size_t(r) * w + c;
      out[at] = 0.25 * (in[at - 1] + in[at + 1] + in[at - w] + in[at + w] + h2 * f[at]);
    }
}

}  // namespace

const PoissonCode poisson_cpu{iterate_on_host<step>};
