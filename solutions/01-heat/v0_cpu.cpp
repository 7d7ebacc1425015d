// heat v0: the CPU loop on one core.
//   run:  build/chapters/01-heat/heat3d --stage v0
//   test: meson test -C build heat-v0 --print-errorlogs
// The reference every other stage is checked against, and the baseline every speed-up is counted
// from.
// What limits it: one core updates one cell after another; each update reads 7 floats and
// writes 1, so it runs at the speed one core can stream memory, far below the machine's.
#include <utility>

#include "heat.h"

namespace {

// `steps` steps, each from `in` into `out`, then the two swapped: the newest field is in `in`.
float* run(const HeatGrid& g, float coeff, float* in, float* out, int steps, dim3, cudaStream_t) {
  const size_t row = size_t(g.nx), plane = size_t(g.nx) * g.ny;
  for (int s = 0; s < steps; ++s, std::swap(in, out))
    for (int k = 1; k < g.nz - 1; ++k)
      for (int j = 1; j < g.ny - 1; ++j)
        for (int i = 1; i < g.nx - 1; ++i) {
          // EXERCISE: update cell (i, j, k): out = in + coeff * (6 neighbours - 6 in)
          const size_t c = (k * size_t(g.ny) + j) * g.nx + i;
          out[c] = in[c] + coeff * ((in[c - 1] + in[c + 1]) + (in[c - row] + in[c + row]) +
                                    (in[c - plane] + in[c + plane]) - 6.0f * in[c]);
        }
  return in;
}

}  // namespace

const HeatCode heat_v0{run};
