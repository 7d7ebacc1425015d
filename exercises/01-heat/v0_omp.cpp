// Exercise skeleton generated from solutions/01-heat/v0_omp.cpp by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// heat v0_omp: v0's loop shared among all cores with OpenMP, the honest CPU baseline a GPU
// stage should be compared with.
//   run:  build-ex/chapters/01-heat/heat3d --stage v0,v0_omp
//   test: meson test -C build-ex heat-v0_omp heat-v0_omp-idea --print-errorlogs
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
    // TODO(exercise): v0's loop nest, with its (k, j) rows shared among the CPU's threads by one OpenMP pragma
  }
  return in;
}

}  // namespace

const HeatCode heat_v0_omp{run};
