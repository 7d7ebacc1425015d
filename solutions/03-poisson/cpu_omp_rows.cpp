// poisson cpu_omp: Jacobi, OpenMP.
//   run:  build/chapters/03-poisson/jacobi cpu_omp 1024 1000
//   test: meson test -C build poisson-cpu_omp poisson-cpu_omp-idea --print-errorlogs
// The same sweep shared among the CPU's cores with OpenMP.
// What limits it: the CPU's memory bandwidth.
#include "poisson.h"

namespace {

void step(const PoissonGrid& g, const double* f, const double* in, double* out) {
  const int w = g.width();
  const double h2 = g.h() * g.h();
  // EXERCISE: the cpu stage's sweep, its rows shared among the threads by one OpenMP pragma
#pragma omp parallel for schedule(static)
  for (int r = 1; r <= g.N; ++r)
    for (int c = 1; c <= g.N; ++c) {
      const size_t at = size_t(r) * w + c;
      out[at] = 0.25 * (in[at - 1] + in[at + 1] + in[at - w] + in[at + w] + h2 * f[at]);
    }
}

}  // namespace

const PoissonCode poisson_cpu_omp{iterate_on_host<step>};
