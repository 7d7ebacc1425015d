// Exercise skeleton generated from solutions/03-poisson/cpu_omp_rows.cpp by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// poisson cpu_omp: Jacobi, OpenMP.
//   run:  build-ex/chapters/03-poisson/jacobi cpu_omp 1024 1000
//   test: meson test -C build-ex poisson-cpu_omp poisson-cpu_omp-idea --print-errorlogs
// The same sweep shared among the CPU's cores with OpenMP.
// What limits it: the CPU's memory bandwidth.
#include "poisson.h"

namespace {

void step(const PoissonGrid& g, const double* f, const double* in, double* out) {
  const int w = g.width();
  const double h2 = g.h() * g.h();
  // TODO(exercise): the cpu stage's sweep, its rows shared among the threads by one OpenMP pragma
}

}  // namespace

const PoissonCode poisson_cpu_omp{iterate_on_host<step>};
