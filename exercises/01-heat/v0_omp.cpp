// Exercise skeleton generated from solutions/01-heat/v0_omp.cpp by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// heat v0_omp: v0's loop shared among all cores with OpenMP, the honest CPU baseline a GPU
// stage should be compared with.
//   run:  build-ex/chapters/01-heat/heat3d --stage v0,v0_omp
//   test: meson test -C build-ex heat-v0_omp heat-v0_omp-idea --print-errorlogs
// Change from v0: one pragma; the (k, j) rows are split among the threads, and each row
// still runs in order, so the inner loop stays vectorisable.
// What limits it: the CPU's memory bandwidth, tens of GB/s against the GPU's thousands.
#include "heat.h"

namespace {

void step(const HeatGrid& g, float coeff, const float* in, float* out) {
  const size_t row = size_t(g.nx), plane = size_t(g.nx) * g.ny;
  // TODO(exercise): v0's loop nest, with its (k, j) rows shared among the CPU's threads by one OpenMP pragma
}

}  // namespace

const HeatCode heat_v0_omp{steps_of<step>};
