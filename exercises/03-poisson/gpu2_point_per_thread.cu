// Exercise skeleton generated from solutions/03-poisson/gpu2_point_per_thread.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// poisson gpu2: one thread per point.
//   run:  build-ex/chapters/03-poisson/jacobi gpu2 4096 1000
//   test: meson test -C build-ex poisson-gpu2 --print-errorlogs
// One thread per grid point, blocks of 32x8, the two fields swapped on the host.
// Change from gpu1: the sweep becomes the grid of threads. Launches go back to back on one
// stream: nothing waits for the GPU between iterations.
// What still limits it: one launch per iteration (a few microseconds each), and every update
// reads u and f and writes u: 24 bytes per update through device memory at best.
#include "check.h"
#include "poisson.h"

namespace {

__global__ void point_per_thread(int N, double h2, const double* f, const double* in, double* out) {
  // TODO(exercise): this thread's point (r, c): c along x, r along y; update it if it is interior
}

void advance(const PoissonGrid& g, const double* f, double*& cur, double*& next, int count, cudaStream_t stream) {
  const dim3 block(32, 8), grid(blocks_for(g.width(), block.x), blocks_for(g.width(), block.y));
  for (int i = 0; i < count; ++i) {
    point_per_thread<<<grid, block, 0, stream>>>(g.N, g.h() * g.h(), f, cur, next);
    CUDA_CHECK_LAUNCH();
    std::swap(cur, next);
  }
}

}  // namespace

const PoissonCode poisson_gpu2{iterate_on_device<advance>};
