// Runs one OpenMP stage once, on a small random problem, for ThreadSanitizer to watch. LLVM's
// Archer teaches ThreadSanitizer OpenMP's own synchronisation, so what it reports is a real data
// race: a variable that the threads share by mistake (a loop index or a cell declared outside the
// parallel loop), reported whether or not the threads happened to collide in this run.
// Built by clang++ from the stage's own file (tests/meson.build): -DRACE_STAGE=heat_v0_omp
// -DRACE_HEAT, and so on; run by tests/omp/omp_race.py.
#include <vector>

#include "random_inputs.h"
#include "validate.h"

#if defined(RACE_HEAT)
#include "heat.h"
extern const HeatCode RACE_STAGE;
int main() {
  const HeatGrid g{37, 29, 23};
  std::vector<float> in(g.cells()), out(g.cells());
  tut::fill_random(in.data(), in.size(), 1, 0.0f, 1.0f);
  RACE_STAGE.run(g, kHeatCoeff, in.data(), out.data(), 1, {}, nullptr);
}
#elif defined(RACE_POISSON)
#include "poisson.h"
extern const PoissonCode RACE_STAGE;
int main() {
  const PoissonProblem p = radiator_problem(45);
  std::vector<double> u = p.u0;
  SolveOptions o;
  o.max_iterations = 4;
  o.tolerance = 1e-30;  // checked every iteration, never reached
  o.check_every = 1;
  RACE_STAGE.solve(p, u, o);
}
#elif defined(RACE_PART2DATA)
#include "particle_mesh.h"
extern const Part2DataCode RACE_STAGE;
int main() {
  const Mesh m{50, 0.02f};
  const int np = 20000;
  std::vector<float> pos(3 * size_t(np));
  tut::fill_random(pos.data(), pos.size(), 2, 0.0f, m.N * m.dx);
  std::vector<int> data(np);
  RACE_STAGE.on_host(m, np, pos.data(), data.data());
}
#elif defined(RACE_FORCE)
#include "particle_mesh.h"
extern const ForceCode RACE_STAGE;
int main() {
  const Mesh m{32, 1.0f / 32};
  std::vector<float> pot(m.cells()), f(m.cells());
  tut::fill_random(pot.data(), pot.size(), 3, -1.0f, 1.0f);
  for (int axis = 0; axis < 3; ++axis)
    if (RACE_STAGE.axes >> axis & 1u) RACE_STAGE.on_host(m, axis, pot.data(), f.data());
}
#endif
