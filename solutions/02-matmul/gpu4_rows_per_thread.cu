// matmul gpu4: 4 elements per thread.
//   run:  build/chapters/02-matmul/matmult_f gpu4 2048 2048 2048
//   test: meson test -C build matmul-gpu4 --print-errorlogs
// Each thread computes ROWS elements of one column of C (4 by default), a number fixed at compile
// time so the partial sums live in registers.
// Change from gpu3: 2 becomes a template parameter; the benchmark sweeps 2, 4, 8, 16.
// Why it should help: one load of B now serves ROWS multiply-adds.
// What still limits it: A is still read through L1 once per multiply-add, and more rows per
// thread means fewer threads: at 16, small matrices no longer fill the GPU.
#include "check.h"
#include "device.h"
#include "matmul.h"

namespace {

template <int ROWS>
__device__ void rows_of_a_column(int m, int n, int k, const double* A, const double* B, double* C) {
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
}

template <int ROWS>
__global__ void rows_per_thread(int m, int n, int k, const double* A, const double* B, double* C) {
  rows_of_a_column<ROWS>(m, n, k, A, B, C);
}

// The same, held to 32 registers per thread, so that 8 blocks of 256 threads (64 warps, the most
// an H200 multiprocessor holds) fit at once, as with 2 rows. An experiment on occupancy.
template <int ROWS>
__global__ void __maxnreg__(32) rows_at_full_occupancy(int m, int n, int k, const double* A, const double* B,
                                                        double* C) {
  rows_of_a_column<ROWS>(m, n, k, A, B, C);
}

template <int ROWS, bool FULL_OCCUPANCY = false>
void launch(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  const dim3 block(16, 16);
  const dim3 grid(blocks_for(n, block.x), blocks_for(m, ROWS * block.y));
  if constexpr (FULL_OCCUPANCY)
    rows_at_full_occupancy<ROWS><<<grid, block, 0, stream>>>(m, n, k, A, B, C);
  else
    rows_per_thread<ROWS><<<grid, block, 0, stream>>>(m, n, k, A, B, C);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

extern "C" void matmult_gpu4(int m, int n, int k, double* A, double* B, double* C) {
  DeviceProduct on_gpu(m, n, k, A, B);
  launch<4>(m, n, k, on_gpu.A.get(), on_gpu.B.get(), on_gpu.C.get(), nullptr);
  on_gpu.copy_c_to(C);
}

// ROWS swept by the benchmark and checked by the tests: 4 is the type itself; gpu4_4x8 is 4 rows
// held to 32 registers, so that 8 blocks fit on a multiprocessor as with 2 rows.
constexpr MatmulVariant kSweep[] = {
    {"gpu4_2", launch<2>}, {"gpu4_8", launch<8>}, {"gpu4_16", launch<16>}, {"gpu4_4x8", launch<4, true>}};
const MatmulCode matmul_gpu4{matmult_gpu4, launch<4>, kSweep};
