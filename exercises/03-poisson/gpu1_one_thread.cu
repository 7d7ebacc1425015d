// Exercise skeleton generated from solutions/03-poisson/gpu1_one_thread.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// poisson gpu1: one GPU thread.
//   run:  build-ex/chapters/03-poisson/jacobi gpu1 64 10
//   test: meson test -C build-ex poisson-gpu1 --print-errorlogs
// One GPU thread, <<<1,1>>>, sweeping the whole grid each iteration (as the report). It proves the
// allocation, copies and pointer swapping; nothing else.
#include "check.h"
#include "poisson.h"

namespace {

__global__ void sweep_in_one_thread(int N, double h2, const double* f, const double* in, double* out) {
  // TODO(exercise): the cpu stage's sweep over every interior point, in this one thread
}

void advance(const PoissonGrid& g, const double* f, double*& cur, double*& next, int count, cudaStream_t stream) {
  for (int i = 0; i < count; ++i) {
    sweep_in_one_thread<<<1, 1, 0, stream>>>(g.N, g.h() * g.h(), f, cur, next);
    CUDA_CHECK_LAUNCH();
    std::swap(cur, next);
  }
}

}  // namespace

const PoissonCode poisson_gpu1{iterate_on_device<advance>};
