// heat v0_omp: v0's loop shared among all cores with OpenMP, the honest CPU baseline a GPU
// stage should be compared with.
//   run:  build/chapters/01-heat/heat3d --stage v0,v0_omp
//   test: meson test -C build heat-v0_omp heat-v0_omp-idea --print-errorlogs
// Change from v0: one pragma; the (k, j) rows are split among the threads, and each row
// still runs in order, so the inner loop stays vectorisable.
// What limits it: the CPU's memory bandwidth, tens of GB/s against the GPU's thousands.
#include "heat.h"

namespace {

void step(const HeatGrid& g, float coeff, const float* in, float* out) {
  const size_t row = size_t(g.nx), plane = size_t(g.nx) * g.ny;
  // EXERCISE: v0's loop nest, with its (k, j) rows shared among the CPU's threads by one OpenMP pragma
#pragma omp parallel for collapse(2) schedule(static)
  for (int k = 1; k < g.nz - 1; ++k)
    for (int j = 1; j < g.ny - 1; ++j)
      for (int i = 1; i < g.nx - 1; ++i) {
        const size_t c = (k * size_t(g.ny) + j) * g.nx + i;
        out[c] = in[c] + coeff * ((in[c - 1] + in[c + 1]) + (in[c - row] + in[c + row]) +
                                  (in[c - plane] + in[c + plane]) - 6.0f * in[c]);
      }
}

}  // namespace

const HeatCode heat_v0_omp{steps_of<step>};
