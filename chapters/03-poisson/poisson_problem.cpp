#include <chrono>
#include <cmath>
#include <cstring>

#include "poisson.h"
#include "random_inputs.h"
#include "validate.h"

namespace {

double coordinate(int index, const PoissonGrid& g) { return -1.0 + index * g.h(); }

}  // namespace

PoissonProblem radiator_problem(int N, uint64_t seed) {
  PoissonProblem p{{N}, {}, {}};
  const int w = p.grid.width();
  p.f.assign(p.grid.cells(), 0.0);
  p.u0.assign(p.grid.cells(), 0.0);
  if (seed) tut::fill_random(p.u0.data(), p.u0.size(), seed, 0.0, 20.0);
  for (int r = 0; r < w; ++r)
    for (int c = 0; c < w; ++c) {
      const double x = coordinate(c, p.grid), y = coordinate(r, p.grid);
      const size_t at = size_t(r) * w + c;
      if (r == 0) p.u0[at] = 0.0;                                  // the cold wall, y = -1
      else if (r == w - 1 || c == 0 || c == w - 1) p.u0[at] = 20.0;  // the other three walls
      if (x >= 0.0 && x <= 1.0 / 3.0 && y >= -2.0 / 3.0 && y <= -1.0 / 3.0) p.f[at] = 200.0;
    }
  return p;
}

double manufactured_solution(double x, double y) { return std::sin(M_PI * x) * std::sin(M_PI * y); }

PoissonProblem manufactured_problem(int N) {
  PoissonProblem p{{N}, {}, {}};
  const int w = p.grid.width();
  p.f.assign(p.grid.cells(), 0.0);
  p.u0.assign(p.grid.cells(), 0.0);  // sin vanishes on the boundary; the interior starts at 0
  for (int r = 0; r < w; ++r)
    for (int c = 0; c < w; ++c)
      p.f[size_t(r) * w + c] = 2 * M_PI * M_PI * manufactured_solution(coordinate(c, p.grid), coordinate(r, p.grid));
  return p;
}

double host_change_norm(const PoissonGrid& g, const double* a, const double* b) {
  const int w = g.width();
  double sum = 0;
  for (int r = 1; r <= g.N; ++r)
    for (int c = 1; c <= g.N; ++c) {
      const double d = a[size_t(r) * w + c] - b[size_t(r) * w + c];
      sum += d * d;
    }
  return std::sqrt(sum);
}
