// heat v0_omp with a mistake students make: the inner loops' indices declared before the
// parallel loop, so that every thread shares them. Its numbers often come out right anyway;
// the OpenMP race check must reject it (meson test omp-race-rejects-shared-index).
#include "heat.h"

namespace {

void step(const HeatGrid& g, float coeff, const float* in, float* out) {
  const size_t row = size_t(g.nx), plane = size_t(g.nx) * g.ny;
  int j, i;  // the mistake: one j and one i for all the threads
#pragma omp parallel for schedule(static)
  for (int k = 1; k < g.nz - 1; ++k)
    for (j = 1; j < g.ny - 1; ++j)
      for (i = 1; i < g.nx - 1; ++i) {
        const size_t c = (k * size_t(g.ny) + j) * g.nx + i;
        out[c] = in[c] + coeff * ((in[c - 1] + in[c + 1]) + (in[c - row] + in[c + row]) +
                                  (in[c - plane] + in[c + plane]) - 6.0f * in[c]);
      }
}

}  // namespace

extern const HeatCode heat_wrong_shared_index;  // external linkage, as heat.h gives the listed stages
const HeatCode heat_wrong_shared_index{steps_of<step>};
