// poisson gpu2: one thread per point.
//   run:  build/chapters/03-poisson/jacobi gpu2 4096 1000
//   test: meson test -C build poisson-gpu2 --print-errorlogs
// One thread per grid point, blocks of 32x8, the two fields swapped on the host.
// Change from gpu1: the sweep becomes the grid of threads. Launches go back to back on one
// stream: nothing waits for the GPU between iterations.
// What still limits it: one launch per iteration (a few microseconds each), and every update
// reads u and f and writes u: 24 bytes per update through device memory at best.
#include "check.h"
#include "poisson.h"

namespace {

__global__ void point_per_thread(int N, double h2, const double* f, const double* in, double* out) {
  // EXERCISE: this thread's point (r, c): c along x, r along y; update it if it is interior
  const int w = N + 2;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < 1 || r < 1 || c > N || r > N) return;
  const size_t at = size_t(r) * w + c;
  out[at] = 0.25 * (in[at - 1] + in[at + 1] + in[at - w] + in[at + w] + h2 * f[at]);
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
