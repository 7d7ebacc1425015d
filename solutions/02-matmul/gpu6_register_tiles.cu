// matmul gpu6: register tiles, 8x8 elements of C per thread.
//   run:  build/chapters/02-matmul/matmult_f gpu6 4096 4096 4096
//   test: meson test -C build matmul-gpu6 --print-errorlogs
// Change from gpu5: a block of 16x16 threads computes a 128x128 tile of C, each thread an 8x8
// tile of it held in 64 registers. For each step of 8 along k, the block stages an 128x8 slice
// of A (transposed) and an 8x128 slice of B in shared memory; each thread then reads 8 values of
// A and 8 of B and does 64 multiply-adds with them (an outer product). The next slices are
// loaded from memory into registers while the current ones are used (two shared buffers, one
// __syncthreads per step), with 16-byte loads where the matrices allow; and each l's 16 values
// are read from shared memory while the previous l's multiply-adds run (two sets of registers).
// Why it should help: gpu5 loads 5 shared values per 4 multiply-adds; here 16 per 64. The
// multiply-adds, not the loads, now fill the instruction slots.
// What still limits it: the FP64 units' rate (chapter 00's `peak`), which the FP64 tensor cores
// exceed several times; and one block of 256 threads per SM (about 200 registers each), so the
// latency of each step is hidden by its own independent multiply-adds only.
#include "check.h"
#include "device.h"
#include "matmul.h"

namespace {

constexpr int BM = 128, BN = 128, BK = 8;  // the block's tile of C, and its step along k
constexpr int TX = 16, TY = 16;            // threads: TX along the columns of C, TY along its rows
constexpr int TM = BM / TY, TN = BN / TX;  // 8 x 8 elements of C per thread
constexpr int kThreads = TX * TY;
// A thread's rows of C: row0 + q * 32 + 2 * ty + {0, 1}, q = 0..3 (its columns likewise), so
// that the 16 threads of a half-warp read 256 contiguous bytes of a shared slice as double2s.
constexpr int kPairs = TM / 2, kStride = 2 * TY;

// The loads of one k-step: 4 elements of A and 4 of B per thread, into registers.
struct Slices {
  double a[4], b[4];
};

// Four consecutive elements `first` .. of a row of `length` elements, zero past its end or where
// the row does not exist; two 16-byte loads when all four are there and the row length is even
// (then the first, a multiple of 4, starts on 16 bytes).
__device__ void load_four(const double* __restrict__ row, bool exists, int first, int length, double out[4]) {
  if (exists && first + 4 <= length && length % 2 == 0) {
    const double2* at = reinterpret_cast<const double2*>(row + first);
    const double2 lo = __ldg(at), hi = __ldg(at + 1);
    out[0] = lo.x, out[1] = lo.y, out[2] = hi.x, out[3] = hi.y;
  } else {
    for (int q = 0; q < 4; ++q) out[q] = (exists && first + q < length) ? __ldg(row + first + q) : 0.0;
  }
}

// Thread t loads A's row t / 2 of the slice, columns (t % 2) * 4 ..; and B's row t / 32,
// columns (t % 32) * 4 ...
__device__ Slices load_slices(int m, int n, int k, const double* __restrict__ A, const double* __restrict__ B,
                              int row0, int col0, int l0) {
  const int t = threadIdx.y * TX + threadIdx.x;
  const int a_i = row0 + t / 2, b_l = l0 + t / 32;
  Slices s;
  load_four(A + size_t(a_i) * k, a_i < m, l0 + (t % 2) * 4, k, s.a);
  load_four(B + size_t(b_l) * n, b_l < k, col0 + (t % 32) * 4, n, s.b);
  return s;
}

__global__ void __launch_bounds__(kThreads) register_tiles(int m, int n, int k, const double* __restrict__ A,
                                                           const double* __restrict__ B, double* __restrict__ C) {
  // Two buffers of each slice: one is read while the next is written. A is stored transposed
  // (k-major), so that a thread's 8 values of A at one l lie side by side, as B's do.
  __shared__ __align__(16) double a_slice[2][BK][BM];
  __shared__ __align__(16) double b_slice[2][BK][BN];
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * TX + tx;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  auto stage = [&](const Slices& s, int buffer) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      a_slice[buffer][(t % 2) * 4 + q][t / 2] = s.a[q];
      b_slice[buffer][t / 32][(t % 32) * 4 + q] = s.b[q];
    }
  };

  // This thread's 8 values of A and 8 of B at step l of a buffer, read as double2s.
  auto read_step = [&](int buffer, int l, double (&a)[TM], double (&b)[TN]) {
    // EXERCISE: the pairs q = 0..3 of A's row l at columns q * kStride + 2 ty (and + 1) into a,
    //   and of B's row l at q * kStride + 2 tx into b, each pair one double2 load
#pragma unroll
    for (int q = 0; q < kPairs; ++q) {
      const double2 a2 = *reinterpret_cast<const double2*>(&a_slice[buffer][l][q * kStride + 2 * ty]);
      const double2 b2 = *reinterpret_cast<const double2*>(&b_slice[buffer][l][q * kStride + 2 * tx]);
      a[2 * q] = a2.x, a[2 * q + 1] = a2.y, b[2 * q] = b2.x, b[2 * q + 1] = b2.y;
    }
  };

  double acc[TM][TN] = {};
  double a[2][TM], b[2][TN];  // this step's values and the next step's, read while this one's are used
  stage(load_slices(m, n, k, A, B, row0, col0, 0), 0);
  __syncthreads();
  read_step(0, 0, a[0], b[0]);
  for (int l0 = 0, buffer = 0; l0 < k; l0 += BK, buffer ^= 1) {
    const bool more = l0 + BK < k;
    Slices next;
    if (more) next = load_slices(m, n, k, A, B, row0, col0, l0 + BK);  // in flight during the products
#pragma unroll
    for (int l = 0; l < BK; ++l) {
      const int now = l % 2, then = (l + 1) % 2;
      if (l < BK - 1) {
        read_step(buffer, l + 1, a[then], b[then]);
      } else {
        // Before the last step's products: the next slices into the other buffer (read by nobody
        // since the last barrier), the barrier, and the next tile's first values, whose loads
        // then overlap this step's multiply-adds.
        if (more) stage(next, buffer ^ 1);
        __syncthreads();
        if (more) read_step(buffer ^ 1, 0, a[then], b[then]);
      }
      // EXERCISE: add the outer product of this step's 8 values of A and 8 of B (a[now], b[now]) to acc
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[now][i] * b[now][j];
    }
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + (i / 2) * kStride + 2 * ty + i % 2;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int col = col0 + (j / 2) * kStride + 2 * tx + j % 2;
      if (row < m && col < n) C[size_t(row) * n + col] = acc[i][j];
    }
  }
}

void launch(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  const dim3 block(TX, TY), grid(blocks_for(n, BN), blocks_for(m, BM));
  register_tiles<<<grid, block, 0, stream>>>(m, n, k, A, B, C);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

extern "C" void matmult_gpu6(int m, int n, int k, double* A, double* B, double* C) {
  DeviceProduct on_gpu(m, n, k, A, B);
  launch(m, n, k, on_gpu.A.get(), on_gpu.B.get(), on_gpu.C.get(), nullptr);
  on_gpu.copy_c_to(C);
}

const MatmulCode matmul_gpu6{matmult_gpu6, launch};
