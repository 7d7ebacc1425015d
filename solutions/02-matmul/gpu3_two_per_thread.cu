// matmul gpu3 and gpu3r: 2 elements per thread, below, or right.
//   run:  build/chapters/02-matmul/matmult_f gpu3r 2048 2048 2048
//   test: meson test -C build matmul-gpu3 matmul-gpu3r --print-errorlogs
// Each thread computes 2 elements of C, half as many threads. Two choices of the second element,
// both here, and the benchmark says which wins:
//   gpu3  (below): rows i and i+1 of one column. One load of B serves 2 multiply-adds, and a
//                  warp still reads 16 consecutive elements of B: coalesced.
//   gpu3r (right): columns j and j+1 of one row. One load of A serves 2, but the warp's loads
//                  of B and stores of C now stride by 2 elements: half of every access wasted.
// What still limits it: loads through L1 per multiply-add are halved for one operand only.
#include "check.h"
#include "device.h"
#include "matmul.h"

namespace {

__global__ void two_below(int m, int n, int k, const double* A, const double* B, double* C) {
  // EXERCISE: rows i0 = 2 * (thread's y index) and i0 + 1 of column j; each element of B loaded once
  //   for both; a second row past the end of C is computed from a valid row and not stored
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i0 = 2 * (blockIdx.y * blockDim.y + threadIdx.y);
  if (i0 >= m || j >= n) return;
  const int i1 = min(i0 + 1, m - 1);
  double sum0 = 0, sum1 = 0;
  for (int l = 0; l < k; ++l) {
    const double b = B[size_t(l) * n + j];
    sum0 += A[size_t(i0) * k + l] * b;
    sum1 += A[size_t(i1) * k + l] * b;
  }
  C[size_t(i0) * n + j] = sum0;
  if (i0 + 1 < m) C[size_t(i0 + 1) * n + j] = sum1;
}

__global__ void two_right(int m, int n, int k, const double* A, const double* B, double* C) {
  // EXERCISE: columns j0 = 2 * (thread's x index) and j0 + 1 of row i; each element of A loaded once
  //   for both; a second column past the end of C is computed from a valid column and not stored
  const int j0 = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j0 >= n) return;
  const int j1 = min(j0 + 1, n - 1);
  double sum0 = 0, sum1 = 0;
  for (int l = 0; l < k; ++l) {
    const double a = A[size_t(i) * k + l];
    sum0 += a * B[size_t(l) * n + j0];
    sum1 += a * B[size_t(l) * n + j1];
  }
  C[size_t(i) * n + j0] = sum0;
  if (j0 + 1 < n) C[size_t(i) * n + j0 + 1] = sum1;
}

void launch_below(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  const dim3 block(16, 16);
  const dim3 grid(blocks_for(n, block.x), blocks_for(m, 2 * block.y));
  two_below<<<grid, block, 0, stream>>>(m, n, k, A, B, C);
  CUDA_CHECK_LAUNCH();
}

void launch_right(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  const dim3 block(16, 16);
  const dim3 grid(blocks_for(n, 2 * block.x), blocks_for(m, block.y));
  two_right<<<grid, block, 0, stream>>>(m, n, k, A, B, C);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

extern "C" void matmult_gpu3(int m, int n, int k, double* A, double* B, double* C) {
  DeviceProduct on_gpu(m, n, k, A, B);
  launch_below(m, n, k, on_gpu.A.get(), on_gpu.B.get(), on_gpu.C.get(), nullptr);
  on_gpu.copy_c_to(C);
}

extern "C" void matmult_gpu3r(int m, int n, int k, double* A, double* B, double* C) {
  DeviceProduct on_gpu(m, n, k, A, B);
  launch_right(m, n, k, on_gpu.A.get(), on_gpu.B.get(), on_gpu.C.get(), nullptr);
  on_gpu.copy_c_to(C);
}

const MatmulCode matmul_gpu3{matmult_gpu3, launch_below};
const MatmulCode matmul_gpu3r{matmult_gpu3r, launch_right};
