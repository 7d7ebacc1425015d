// heat v0_omp: v0's loop shared among all cores with OpenMP, the honest CPU baseline a GPU
// stage should be compared with.
//   run:  build/chapters/01-heat/heat3d --stage v0,v0_omp
//   test: meson test -C build heat-v0_omp heat-v0_omp-idea --print-errorlogs
// Change from v0: one pragma; the (k, j) rows of each step are split among the threads, and
// each row still runs in order, so the inner loop stays vectorisable.
// What limits it: the CPU's memory bandwidth, tens of GB/s against the GPU's thousands.
#include <utility>

#include "heat.h"

namespace {

// `steps` steps, each from `in` into `out`, then the two swapped: the newest field is in `in`.
float* run(const HeatGrid& g, float coeff, float* in, float* out, int steps, dim3, cudaStream_t) {
  const size_t row = size_t(g.nx), plane = size_t(g.nx) * g.ny;
  for (int s = 0; s < steps; ++s, std::swap(in, out)) {
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
  return in;
}

}  // namespace

const HeatCode heat_v0_omp{run};
