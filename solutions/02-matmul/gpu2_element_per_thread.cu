// matmul gpu2: one thread per element, 16x16.
//   run:  build/chapters/02-matmul/matmult_f gpu2 2048 2048 2048
//   test: meson test -C build matmul-gpu2 --print-errorlogs
// One thread per element of C, in 2D blocks of 16x16.
// Change from gpu1: the two outer loops become the grid; each thread computes one dot product.
// Why it helps: m x n threads work at once. A warp's 16 threads along a row of C read 16
// consecutive elements of B (coalesced) and the same element of A (one broadcast).
// What still limits it: each multiply-add needs a fresh load of B and of A (from L1 or L2 at
// best): loads, not arithmetic, set the pace.
#include "check.h"
#include "device.h"
#include "matmul.h"

namespace {

__global__ void element_per_thread(int m, int n, int k, const double* A, const double* B, double* C) {
  // EXERCISE: this thread's element (i, j) of C: j along x, i along y; skip it if outside C
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  double sum = 0;
  for (int l = 0; l < k; ++l) sum += A[size_t(i) * k + l] * B[size_t(l) * n + j];
  C[size_t(i) * n + j] = sum;
}

void launch(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  const dim3 block(16, 16);
  const dim3 grid(blocks_for(n, block.x), blocks_for(m, block.y));
  element_per_thread<<<grid, block, 0, stream>>>(m, n, k, A, B, C);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

extern "C" void matmult_gpu2(int m, int n, int k, double* A, double* B, double* C) {
  DeviceProduct on_gpu(m, n, k, A, B);
  launch(m, n, k, on_gpu.A.get(), on_gpu.B.get(), on_gpu.C.get(), nullptr);
  on_gpu.copy_c_to(C);
}

const MatmulCode matmul_gpu2{matmult_gpu2, launch};
