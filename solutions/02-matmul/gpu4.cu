// Type gpu4: each thread computes ROWS elements of one column of C (4 by default), a number
// fixed at compile time so the partial sums live in registers.
// Change from gpu3: 2 becomes a template parameter; the benchmark sweeps 2, 4, 8, 16.
// Why it should help: one load of B now serves ROWS multiply-adds.
// What still limits it: A is still read through L1 once per multiply-add, and more rows per
// thread means fewer threads: at 16, small matrices no longer fill the GPU.
#include "check.h"
#include "device.h"
#include "matmul.h"

namespace {

template <int ROWS>
__global__ void rows_per_thread(int m, int n, int k, const double* A, const double* B, double* C) {
  // EXERCISE: rows i0 .. i0 + ROWS - 1 of column j, with i0 = ROWS * (thread's y index): one load of
  //   B per l serves all ROWS sums, kept in a register array indexed by unrolled loops only
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i0 = ROWS * (blockIdx.y * blockDim.y + threadIdx.y);
  if (i0 >= m || j >= n) return;
  const double* a_row[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) a_row[r] = A + size_t(min(i0 + r, m - 1)) * k;  // rows past C: valid, unused
  double sum[ROWS] = {};
  for (int l = 0; l < k; ++l) {
    const double b = B[size_t(l) * n + j];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) sum[r] += a_row[r][l] * b;
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
    if (i0 + r < m) C[size_t(i0 + r) * n + j] = sum[r];
  // END EXERCISE
}

template <int ROWS>
void launch(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  const dim3 block(16, 16);
  const dim3 grid(blocks_for(n, block.x), blocks_for(m, ROWS * block.y));
  rows_per_thread<ROWS><<<grid, block, 0, stream>>>(m, n, k, A, B, C);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

extern "C" void matmult_gpu4(int m, int n, int k, double* A, double* B, double* C) {
  matmult_on_device(m, n, k, A, B, C, launch<4>);
}

const MatmulStage matmul_gpu4 = {"gpu4", "4 elements per thread", matmult_gpu4, launch<4>, MATMUL_STAGE_FILE("gpu4.cu")};
const MatmulStage matmul_gpu4_e2 = {"gpu4_2", "2 elements per thread", nullptr, launch<2>, MATMUL_STAGE_FILE("gpu4.cu")};
const MatmulStage matmul_gpu4_e8 = {"gpu4_8", "8 elements per thread", nullptr, launch<8>, MATMUL_STAGE_FILE("gpu4.cu")};
const MatmulStage matmul_gpu4_e16 = {"gpu4_16", "16 elements per thread", nullptr, launch<16>, MATMUL_STAGE_FILE("gpu4.cu")};
