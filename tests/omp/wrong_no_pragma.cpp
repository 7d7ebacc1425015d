// heat v0_omp without its pragma: right numbers, one thread, the stage's point gone. The
// OpenMP check must reject it (meson test omp-race-rejects-missing-pragma).
#include "heat.h"

namespace {

void step(const HeatGrid& g, float coeff, const float* in, float* out) {
  const size_t row = size_t(g.nx), plane = size_t(g.nx) * g.ny;
  for (int k = 1; k < g.nz - 1; ++k)
    for (int j = 1; j < g.ny - 1; ++j)
      for (int i = 1; i < g.nx - 1; ++i) {
        const size_t c = (k * size_t(g.ny) + j) * g.nx + i;
        out[c] = in[c] + coeff * ((in[c - 1] + in[c + 1]) + (in[c - row] + in[c + row]) +
                                  (in[c - plane] + in[c + plane]) - 6.0f * in[c]);
      }
}

}  // namespace

extern const HeatCode heat_wrong_no_pragma;  // external linkage, as heat.h gives the listed stages
const HeatCode heat_wrong_no_pragma{step};
