// poisson gpu3: CUDA graph of 100 iterations.
//   run:  build/chapters/03-poisson/jacobi gpu3 512 1000
//   test: meson test -C build poisson-gpu3 poisson-gpu3-idea --print-errorlogs
// The iteration loop moves to the device side. 100 iterations are captured once in a CUDA graph and
// the graph is launched instead of 100 kernels; the kernel's pointers are const __restrict__, so u
// and f are read through the read-only cache path.
// Change from gpu2: launch overhead per iteration shrinks; the kernel itself is gpu2's.
// Why it should help: small grids, whose iterations take a few microseconds, were paying
// a launch per iteration. Large grids gain little: there the bytes set the time.
#include "check.h"
#include "poisson.h"

namespace {

constexpr int kGraphIterations = 100;  // even, so the fields end where they started

__global__ void point_per_thread(int N, double h2, const double* __restrict__ f, const double* __restrict__ in,
                                 double* __restrict__ out) {
  const int w = N + 2;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < 1 || r < 1 || c > N || r > N) return;
  const size_t at = size_t(r) * w + c;
  out[at] = 0.25 * (in[at - 1] + in[at + 1] + in[at - w] + in[at + w] + h2 * f[at]);
}

void launch(const PoissonGrid& g, const double* f, const double* in, double* out, cudaStream_t stream) {
  const dim3 block(32, 8), grid(blocks_for(g.width(), block.x), blocks_for(g.width(), block.y));
  point_per_thread<<<grid, block, 0, stream>>>(g.N, g.h() * g.h(), f, in, out);
  CUDA_CHECK_LAUNCH();
}

void advance(const PoissonGrid& g, const double* f, double*& cur, double*& next, int count, cudaStream_t stream) {
  int left = count;
  if (count >= kGraphIterations) {
    // EXERCISE: capture kGraphIterations launches (cur -> next, next -> cur, ...) into a graph on
    //   `stream`, instantiate it, and replay it while at least kGraphIterations iterations are left
    cudaGraph_t graph;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < kGraphIterations; i += 2) {
      launch(g, f, cur, next, stream);
      launch(g, f, next, cur, stream);
    }
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t replay;
    CUDA_CHECK(cudaGraphInstantiate(&replay, graph, 0));
    for (; left >= kGraphIterations; left -= kGraphIterations) CUDA_CHECK(cudaGraphLaunch(replay, stream));
    CUDA_CHECK(cudaGraphExecDestroy(replay));
    CUDA_CHECK(cudaGraphDestroy(graph));
    // SKELETON: left %= kGraphIterations;  // the iterations your graph replays must run
  }
  for (; left > 0; --left) {  // the remainder, one launch each
    launch(g, f, cur, next, stream);
    std::swap(cur, next);
  }
}

}  // namespace

const PoissonCode poisson_gpu3{iterate_on_device<advance>};
