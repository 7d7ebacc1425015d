// The FP64 tensor-core tile of chapter 02 (gpu7, and gpu8's split-K and stream-K kernels built
// from the same pieces): a block of WARPS_M x WARPS_N warps computes a BM x BN tile of C = A B,
// staging k-tiles of A and B in shared memory with cp.async, STAGES tiles deep, while each warp
// multiplies the tile before with mma.sync on doubles (PTX ISA, "Warp-level matrix multiply-
// accumulate instructions"). A kernel is then a choice of which tile and which k-tiles a block
// takes: multiply_k_tiles, then store_tile.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "async_copy.h"
#include "check.h"

constexpr int kPad = 4;  // doubles added to each shared row; see the bank note in Tiling

// A block's tiling: BM x BN of C, WARPS_M x WARPS_N warps, STAGES k-tiles of BK in shared memory
// (A's BM x BK and B's BK x BN each), and the mma shape 16x8xMMA_K (MMA_K = 4: four 8x8x4
// instructions per 16x8x8, what 8.x offers).
template <int BM_, int BN_, int BK_, int WARPS_M, int WARPS_N, int STAGES_, int MMA_K_>
struct Tiling {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_, MMA_K = MMA_K_;
  static constexpr int kThreads = 32 * WARPS_M * WARPS_N;
  static constexpr int kWarpsN = WARPS_N;
  static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // a warp's tile of C
  static constexpr int MI = WM / 16, NI = WN / 8;             // its 16x8 products
  // Fragment loads read, per half-warp, rows g = 0..3 at columns t = 0..3 (A), or rows t at
  // columns g (B). With row strides of 4 (mod 16) doubles those 16 doubles fall in 32 distinct
  // 4-byte banks; an unpadded stride (a multiple of 16 doubles) would put all of them in 8.
  static constexpr int kAStride = BK + kPad, kBStride = BN + kPad;
  static constexpr int kStageDoubles = BM * kAStride + BK * kBStride;
  static constexpr size_t kSharedBytes = size_t(STAGES) * kStageDoubles * sizeof(double);
  static_assert(WM % 16 == 0 && WN % 8 == 0 && BK % (MMA_K < 8 ? 8 : MMA_K) == 0, "tiles of whole products");
  static_assert(kAStride % 16 == 4 && kBStride % 16 == 4, "conflict-free fragment loads");
};

// acc (a 16x8 tile of C) += a (16 x K of A) b (K x 8 of B), in the fragment layout of PTX's
// mma.m16n8k8/k16 on f64, where g = lane / 4 and t = lane % 4 (K = 4 means a 16x8x8 product):
//   a[v] = A[g + 8 (v % 2)][t + 4 (v / 2)],   b[v] = B[t + 4 v][g],   acc[v] = C[g + 8 (v / 2)][2 t + v % 2].
template <int MMA_K, int A_COUNT, int B_COUNT>
__device__ void multiply_add_16x8(double (&acc)[4], const double (&a)[A_COUNT], const double (&b)[B_COUNT]) {
#if __CUDA_ARCH__ >= 900
  constexpr bool kHopper = true;  // the 16x8x8 and 16x8x16 shapes exist from compute capability 9.0
#else
  constexpr bool kHopper = false;
#endif
  if constexpr (kHopper && MMA_K == 8) {
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+d"(acc[0]), "+d"(acc[1]), "+d"(acc[2]), "+d"(acc[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
  } else if constexpr (kHopper && MMA_K == 16) {
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
        "{%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
        : "+d"(acc[0]), "+d"(acc[1]), "+d"(acc[2]), "+d"(acc[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]),
          "d"(b[1]), "d"(b[2]), "d"(b[3]));
  } else {
#if __CUDA_ARCH__ >= 800
    // The same product as 8x8x4 instructions (a[v] = A[g][t], b = B[t][g], acc pair = C[g][2t, 2t+1]):
    // rows h = 0, 1 of 8, k-quarters q of 4.
#pragma unroll
    for (int q = 0; q < B_COUNT; ++q)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
            : "+d"(acc[2 * h]), "+d"(acc[2 * h + 1])
            : "d"(a[h + 2 * q]), "d"(b[q]));
#endif
  }
}

// One k-tile's products for one warp: for each 8 (or 16) of the tile's k, this thread's fragments
// of its MI tiles of A and NI of B from shared memory, then MI x NI mma instructions.
template <class T>
__device__ void multiply_tile(const double* a_tile, const double* b_tile, double (&acc)[T::MI][T::NI][4]) {
  constexpr int K = T::MMA_K < 8 ? 8 : T::MMA_K;  // k per product
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int kk = 0; kk < T::BK; kk += K) {
    double a[T::MI][K / 2], b[T::NI][K / 4];
#pragma unroll
    for (int mi = 0; mi < T::MI; ++mi)
#pragma unroll
      for (int v = 0; v < K / 2; ++v) a[mi][v] = a_tile[(mi * 16 + g + 8 * (v % 2)) * T::kAStride + kk + t + 4 * (v / 2)];
#pragma unroll
    for (int ni = 0; ni < T::NI; ++ni)
#pragma unroll
      for (int v = 0; v < K / 4; ++v) b[ni][v] = b_tile[(kk + t + 4 * v) * T::kBStride + ni * 8 + g];
#pragma unroll
    for (int mi = 0; mi < T::MI; ++mi)
#pragma unroll
      for (int ni = 0; ni < T::NI; ++ni) multiply_add_16x8<T::MMA_K>(acc[mi][ni], a[mi], b[ni]);
  }
}

// Writes two neighbouring elements of C (row, col and col + 1), those inside the matrix; as one
// 16-byte store when the rows are 16-byte aligned (WIDTH 2).
template <int WIDTH>
__device__ void store_pair(double* C, int m, int n, int row, int col, double first, double second) {
  if (row >= m) return;
  double* at = C + size_t(row) * n + col;
  if (WIDTH == 2 && col + 1 < n) {
    *reinterpret_cast<double2*>(at) = make_double2(first, second);
    return;
  }
  if (col < n) at[0] = first;
  if (col + 1 < n) at[1] = second;
}

// A warp's accumulators: its MI x NI products of 16x8, four doubles each per thread.
template <class T>
using Accumulators = double[T::MI][T::NI][4];

// The block's BM x BN tile of C at (row0, col0): the products of k-tiles first_tile ..
// first_tile + tiles - 1, added to acc. WIDTH: doubles per cp.async, 2 when every row of A, B
// and C starts on 16 bytes, else 1. Compiled for a GPU older than 8.0, the copies and products
// are empty: require_fp64_tensor_cores refuses to run it.
template <class T, int WIDTH>
__device__ __forceinline__ void multiply_k_tiles(int m, int n, int k, const double* __restrict__ A,
                                                 const double* __restrict__ B, int row0, int col0, int first_tile,
                                                 int tiles, Accumulators<T>& acc) {
  extern __shared__ __align__(16) double stages[];
  const int warp = threadIdx.x / 32;
  const int warp_row = (warp / T::kWarpsN) * T::WM, warp_col = (warp % T::kWarpsN) * T::WN;
  auto a_stage = [&](int tile) { return stages + (tile % T::STAGES) * T::kStageDoubles; };
  auto b_stage = [&](int tile) { return a_stage(tile) + T::BM * T::kAStride; };

  // This thread's copies: the same rows and columns of every k-tile, so their addresses are
  // worked out once; a tile moves them BK columns along A and BK rows down B. A copy that would
  // leave a matrix reads nothing and writes zeros: the tails need no other code.
  constexpr int kARowChunks = T::BK / WIDTH, kBRowChunks = T::BN / WIDTH;  // copies per shared row
  constexpr int kARowStep = T::kThreads / kARowChunks, kBRowStep = T::kThreads / kBRowChunks;
  constexpr int kACopies = T::BM / kARowStep, kBCopies = T::BK / kBRowStep;  // per thread and tile
  static_assert(T::kThreads % kARowChunks == 0 && T::kThreads % kBRowChunks == 0, "whole rows per pass");
  static_assert(T::BM % kARowStep == 0 && T::BK % kBRowStep == 0, "every thread copies as much");
  const int a_row = threadIdx.x / kARowChunks, a_col = (threadIdx.x % kARowChunks) * WIDTH;
  const int b_row = threadIdx.x / kBRowChunks, b_col = (threadIdx.x % kBRowChunks) * WIDTH;
  const double* a_from = A + size_t(row0 + a_row) * k + a_col;  // dereferenced only where inside
  const double* b_from = B + size_t(b_row) * n + col0 + b_col;
  const size_t a_step = size_t(kARowStep) * k, b_step = size_t(kBRowStep) * n;

  // Starts the copies of k-tile `tile` into its stage and closes them into one group; past the
  // last tile they only write zeros to a stage nobody reads, which keeps the group count regular
  // and the code free of branches (so the compiler may interleave it with the products).
  auto start_tile = [&](int tile) {
    const int l0 = (first_tile + tile) * T::BK;
    double* a_to = a_stage(tile) + a_row * T::kAStride + a_col;
    double* b_to = b_stage(tile) + b_row * T::kBStride + b_col;
#pragma unroll
    for (int q = 0; q < kACopies; ++q) {
      const bool inside = row0 + a_row + q * kARowStep < m && l0 + a_col < k;
      copy_async<WIDTH>(a_to + q * kARowStep * T::kAStride, inside ? a_from + q * a_step + l0 : A, inside);
    }
#pragma unroll
    for (int q = 0; q < kBCopies; ++q) {
      const bool inside = l0 + b_row + q * kBRowStep < k && col0 + b_col < n;
      copy_async<WIDTH>(b_to + q * kBRowStep * T::kBStride, inside ? b_from + (size_t(l0) * n + q * b_step) : B, inside);
    }
    close_copy_group();
  };

  for (int tile = 0; tile < T::STAGES - 1; ++tile) start_tile(tile);
  for (int tile = 0; tile < tiles; ++tile) {
    // Groups closed so far: STAGES - 1 + tile, the oldest being tile 0. Leaving STAGES - 2 in
    // flight means tiles 0 .. `tile` have landed, for this thread's copies; the barrier then
    // covers the other threads' copies, and tells that every warp is done with tile - 1, whose
    // stage the next copies overwrite. They are started after the products in program order, so
    // that the fragment loads go first and the copies' address arithmetic fills the gaps
    // between mma instructions.
    wait_for_copy_groups<T::STAGES - 2>();
    __syncthreads();
    multiply_tile<T>(a_stage(tile) + warp_row * T::kAStride, b_stage(tile) + warp_col, acc);
    start_tile(tile + T::STAGES - 1);
  }
}

// Writes the block's tile of C at (row0, col0) from the warps' accumulators.
template <class T, int WIDTH>
__device__ __forceinline__ void store_tile(double* C, int m, int n, int row0, int col0, const Accumulators<T>& acc) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int warp_row = (warp / T::kWarpsN) * T::WM, warp_col = (warp % T::kWarpsN) * T::WN;
#pragma unroll
  for (int mi = 0; mi < T::MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < T::NI; ++ni) {
      const int row = row0 + warp_row + mi * 16 + g, col = col0 + warp_col + ni * 8 + 2 * t;
      store_pair<WIDTH>(C, m, n, row, col, acc[mi][ni][0], acc[mi][ni][1]);
      store_pair<WIDTH>(C, m, n, row + 8, col, acc[mi][ni][2], acc[mi][ni][3]);
    }
}

// Says why this GPU, or this build, cannot run `stage`'s kernel: no FP64 tensor cores before
// compute capability 8.0, and none in code compiled for an older one (meson's -Dcuda-arch).
template <class Kernel>
void require_fp64_tensor_cores(const char* stage, Kernel kernel) {
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  const std::string gpu = std::to_string(major) + "." + std::to_string(minor);
  if (major < 8)
    throw tut::NoDeviceError(std::string(stage) + " runs on the FP64 tensor cores (mma.sync on doubles), which need "
                             "compute capability 8.0 or newer; this GPU is " + gpu);
  cudaFuncAttributes built;
  CUDA_CHECK(cudaFuncGetAttributes(&built, kernel));
  if (built.ptxVersion < 80)
    throw tut::NoDeviceError(std::string(stage) + "'s kernel was compiled for compute capability " + std::to_string(built.ptxVersion / 10) + "." +
                             std::to_string(built.ptxVersion % 10) + ", which has no FP64 mma; this GPU is " + gpu +
                             ": configure with meson setup -Dcuda-arch=" + std::to_string(major * 10 + minor));
}

// Pairs of doubles (16-byte copies, WIDTH 2) where k and n are even and the matrices start on
// 16 bytes, else single doubles (8-byte copies, WIDTH 1).
inline bool copies_in_pairs(int n, int k, const double* A, const double* B, const double* C) {
  const auto on_16_bytes = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  return k % 2 == 0 && n % 2 == 0 && on_16_bytes(A) && on_16_bytes(B) && on_16_bytes(C);
}
