// Exercise skeleton generated from solutions/03-poisson/cpu_omp.cpp by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// Stage cpu_omp: the same sweep shared among the CPU's cores with OpenMP.
// What limits it: the CPU's memory bandwidth.
#include "poisson.h"

namespace {

void step(const PoissonGrid& g, const double* f, const double* in, double* out) {
  const int w = g.width();
  const double h2 = g.h() * g.h();
  // TODO(exercise): the cpu stage's sweep, its rows shared among the threads by one OpenMP pragma
}

SolveResult solve(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  return iterate_on_host(p, u, o, step);
}

}  // namespace

const PoissonStage poisson_cpu_omp = {"cpu_omp", "Jacobi, OpenMP", false, false, solve, POISSON_STAGE_FILE("cpu_omp.cpp")};
