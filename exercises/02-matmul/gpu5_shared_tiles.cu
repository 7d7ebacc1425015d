// Exercise skeleton generated from solutions/02-matmul/gpu5_shared_tiles.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// matmul gpu5: 32x32 shared-memory tiles.
//   run:  build-ex/chapters/02-matmul/matmult_f gpu5 2048 2048 2048
//   test: meson test -C build-ex matmul-gpu5 matmul-gpu5-idea --print-errorlogs
// Shared-memory tiles. A block computes a 32x32 tile of C with 32x8 threads, each thread 4 rows of
// one column as in gpu4. For each step along k, the block first copies a 32x32 tile of A and one of
// B into shared memory (coalesced, zero-padded past the edges, so any m, n, k works), then every
// thread works from shared memory.
// Why it should help: each element of A and B is read from device memory (or L2) once per
// block instead of once per thread; the reads of A become broadcasts from shared memory.
// What still limits it: shared-memory loads: 5 per 4 multiply-adds; cuBLAS keeps far more of
// the tile in registers and feeds the FP64 tensor cores.
#include "check.h"
#include "device.h"
#include "matmul.h"

namespace {

constexpr int TILE = 32;                // a tile is TILE x TILE elements of C
constexpr int ROWS = 4;                 // rows per thread, as gpu4
constexpr int THREADS_Y = TILE / ROWS;  // 8: the block is TILE x THREADS_Y threads

__global__ void shared_tiles(int m, int n, int k, const double* A, const double* B, double* C) {
  __shared__ double tile_a[TILE][TILE];
  __shared__ double tile_b[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int j = blockIdx.x * TILE + tx;     // this thread's column of C
  const int row0 = blockIdx.y * TILE;       // the tile's first row of C
  double sum[ROWS] = {};
  for (int l0 = 0; l0 < k; l0 += TILE) {
    // TODO(exercise): copy the A tile (rows row0.., columns l0..) and the B tile (rows l0.., columns
    //   blockIdx.x * TILE..) into shared memory, each thread ROWS elements of each, zero outside
    //   the matrices; wait for the whole block; accumulate; wait again before the next copy
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int i = row0 + ty + r * THREADS_Y;
    if (i < m && j < n) C[size_t(i) * n + j] = sum[r];
  }
}

void launch(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  const dim3 block(TILE, THREADS_Y);
  const dim3 grid(blocks_for(n, TILE), blocks_for(m, TILE));
  shared_tiles<<<grid, block, 0, stream>>>(m, n, k, A, B, C);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

extern "C" void matmult_gpu5(int m, int n, int k, double* A, double* B, double* C) {
  DeviceProduct on_gpu(m, n, k, A, B);
  launch(m, n, k, on_gpu.A.get(), on_gpu.B.get(), on_gpu.C.get(), nullptr);
  on_gpu.copy_c_to(C);
}

const MatmulCode matmul_gpu5{matmult_gpu5, launch};
