// The time step on the host: an orphaned OpenMP reduction, so that a stage's one parallel
// region (around its whole time loop) shares it; outside a region one thread does it all.
#include <algorithm>

#include "step_support.h"

void host_time_step(const Problem& p, const double* q, Clock* clock, int j_begin, int j_end, double (*across)(double)) {
  static double rate;  // static: shared by the threads of the team that calls this
  if (j_end < 0) j_end = p.mesh.ny;
#pragma omp single
  rate = 0;
#pragma omp for reduction(max : rate)
  for (int j = j_begin; j < j_end; ++j)
    for (int i = 0; i < p.mesh.nx; ++i)
      rate = std::max(rate, stable_rate<false>(p.mesh, p.gas, load_cell(p.mesh, q, at(p.mesh, i, j))));
#pragma omp master  // the thread that may call MPI
  {
    if (across) rate = across(rate);
    clock->dt = std::max(0.0, std::min(p.cfl / rate, p.t_end - clock->t));
    clock->t += clock->dt;
  }
#pragma omp barrier
}
