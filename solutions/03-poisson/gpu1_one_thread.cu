// poisson gpu1: one GPU thread.
//   run:  build/chapters/03-poisson/jacobi gpu1 64 10
//   test: meson test -C build poisson-gpu1 --print-errorlogs
// One GPU thread, <<<1,1>>>, sweeping the whole grid each iteration (as the report). It proves the
// allocation, copies and pointer swapping; nothing else.
#include "check.h"
#include "poisson.h"

namespace {

__global__ void sweep_in_one_thread(int N, double h2, const double* f, const double* in, double* out) {
  // EXERCISE: the cpu stage's sweep over every interior point, in this one thread
  const int w = N + 2;
  for (int r = 1; r <= N; ++r)
    for (int c = 1; c <= N; ++c) {
      const size_t at = size_t(r) * w + c;
      out[at] = 0.25 * (in[at - 1] + in[at + 1] + in[at - w] + in[at + w] + h2 * f[at]);
    }
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
