// Exercise skeleton generated from solutions/02-matmul/gpu7_tensor_cores.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// matmul gpu7: the FP64 tensor cores, through warp-level mma.sync on doubles.
//   run:  build-ex/chapters/02-matmul/matmult_f gpu7 4096 4096 4096
//   test: meson test -C build-ex matmul-gpu7 matmul-gpu7-idea --print-errorlogs
// Change from gpu6: the multiply-adds leave the FP64 units for the tensor cores. Each warp computes
// a 32x64 tile of C as 2 x 8 products of 16x8 tiles, each product one mma instruction that the 32
// threads issue together (16x8x16 on Hopper), every thread holding its share of A, B and C in
// registers in the layout the PTX manual fixes for the shape. A block of 8 warps (a 128x128 tile
// of C) stages k-tiles of 32 of A and B in shared memory with cp.async, two tiles ahead, so the
// copies of later tiles are in flight while the warps multiply the current one. Shared rows are
// padded so that fragment loads see no bank conflicts, and tiles past the matrices' edges are
// filled with zeros by the copies themselves.
// Why it should help: one 16x8x16 mma is 2048 multiply-adds per warp, and the tensor cores' FP64
// rate is twice that of the FP64 units (chapter 00's `peak`).
// What still limits it: the tensor pipe, busy 84% of the time in Nsight Compute (cuBLAS: 98%);
// the rest is the barrier and the fragment loads at the start of each k-tile, when the 8 warps
// of the SM's one block all wait at once. Variants: chapters/02-matmul/plot_matmul.py --markdown.
// Needs FP64 tensor cores: compute capability 8.0 (8x8x4 shape) or 9.0 (16x8x8, 16x8x16).
// gpu8 launches the same kernel in other tile shapes and with k split along blockIdx.z, and a
// stream-K kernel built from the same two pieces, multiply_k_tiles and store_tile (gpu7_tiles,
// at the end of this file); gpu7 itself launches the whole of k at once.
#include <cstdint>
#include <string>

#include "async_copy.h"
#include "check.h"
#include "device.h"
#include "matmul.h"
#include "stress.h"

namespace {

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
    // TODO(exercise): load this thread's fragments (a[mi][v] from a_tile, row mi * 16 + g + 8 (v % 2),
    //   column kk + t + 4 (v / 2); b[ni][v] from b_tile, row kk + t + 4 v, column ni * 8 + g; rows
    //   kAStride and kBStride apart), then multiply_add_16x8 for every (mi, ni)
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
// are empty: launch refuses to run it.
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

// One block per tile of C. Split along blockIdx.z (gpu8): block z multiplies its share of the
// k-tiles and writes its partial product to C + z m n; gpu7 itself launches one share, all of k.
template <class T, int WIDTH>
__global__ void __launch_bounds__(T::kThreads) tensor_core_tiles(int m, int n, int k, const double* __restrict__ A,
                                                                 const double* __restrict__ B, double* __restrict__ C) {
  const int row0 = blockIdx.y * T::BM, col0 = blockIdx.x * T::BN;
  const int all_tiles = (k + T::BK - 1) / T::BK, share = (all_tiles + gridDim.z - 1) / gridDim.z;
  const int first_tile = blockIdx.z * share, tiles = max(0, min(share, all_tiles - first_tile));
  Accumulators<T> acc = {};
  multiply_k_tiles<T, WIDTH>(m, n, k, A, B, row0, col0, first_tile, tiles, acc);
  store_tile<T, WIDTH>(C + size_t(blockIdx.z) * m * n, m, n, row0, col0, acc);
}

// gpu8's stream-K, from the same pieces: the grid's blocks (no more than the GPU holds at once)
// take equal runs of all the tiles' k-tiles, counted tile after tile, so that no SM waits for a
// last, partly empty wave. A run starts inside a tile's k at most once, at its own start: that
// partial product goes to the block's slot in `partials` and its flag in `ready` is raised. The
// block whose run holds a tile's first k-tile has reached it at its run's end, by when the blocks
// that finish the tile's k (the next ones) have handed theirs over: it adds them and writes C.
// All blocks are resident at once, so the wait cannot block the blocks it waits for.
template <class T>
__device__ __forceinline__ void hand_over(const Accumulators<T>& acc, double* partials, unsigned* ready) {
  double* slot = partials + size_t(blockIdx.x) * T::BM * T::BN;
  tut::stress::pause_if(threadIdx.x >= 32, 100);  // stress builds: the first warp alone writes on time
  int r = 0;
#pragma unroll
  for (int mi = 0; mi < T::MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < T::NI; ++ni)
#pragma unroll
      for (int v = 0; v < 4; ++v) slot[(r++) * T::kThreads + threadIdx.x] = acc[mi][ni][v];
  if constexpr (!tut::stress::removed("fence_before_flag")) {  // the stress suite's build without it fails
    __threadfence();  // this thread's slot in memory before the flag, for every thread
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicExch(ready + blockIdx.x, 1u);
}

template <class T>
__device__ __forceinline__ void add_handed_over(Accumulators<T>& acc, const double* partials, unsigned* ready, int from) {
  if (threadIdx.x == 0)
    while (atomicCAS(ready + from, 1u, 0u) == 0u) __nanosleep(64);  // taken and lowered for the next call
  __syncthreads();
  __threadfence();
  const double* slot = partials + size_t(from) * T::BM * T::BN;
  int r = 0;
#pragma unroll
  for (int mi = 0; mi < T::MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < T::NI; ++ni)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[mi][ni][v] += __ldcg(slot + (r++) * T::kThreads + threadIdx.x);
}

template <class T, int WIDTH>
__global__ void __launch_bounds__(T::kThreads) stream_k_tiles(int m, int n, int k, const double* __restrict__ A,
                                                              const double* __restrict__ B, double* __restrict__ C,
                                                              double* __restrict__ partials, unsigned* __restrict__ ready) {
  const int columns = (n + T::BN - 1) / T::BN, k_tiles = (k + T::BK - 1) / T::BK;
  const long long all = (long long)((m + T::BM - 1) / T::BM) * columns * k_tiles;
  const auto run_start = [&](long long block) { return all * block / gridDim.x; };
  const long long end = run_start(blockIdx.x + 1);
  for (long long at = run_start(blockIdx.x); at < end;) {
    const long long tile = at / k_tiles, tile_end = (tile + 1) * k_tiles;
    const int first = int(at - tile * k_tiles), count = int(min(end, tile_end) - at);
    const int row0 = int(tile / columns) * T::BM, col0 = int(tile % columns) * T::BN;
    Accumulators<T> acc = {};
    multiply_k_tiles<T, WIDTH>(m, n, k, A, B, row0, col0, first, count, acc);
    wait_for_copy_groups<0>();  // the copies started past the run's end land before the stages are reused
    __syncthreads();
    if (first > 0) {
      hand_over<T>(acc, partials, ready);
    } else {
      for (int other = blockIdx.x + 1; tile_end > end && run_start(other) < tile_end; ++other)
        add_handed_over<T>(acc, partials, ready, other);
      store_tile<T, WIDTH>(C, m, n, row0, col0, acc);
    }
    at += count;
  }
}

// Says why this GPU, or this build, cannot run the kernel: no FP64 tensor cores before compute
// capability 8.0, and none in code compiled for an older one (meson's -Dcuda-arch).
template <class Kernel>
void require_fp64_tensor_cores(Kernel kernel) {
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  const std::string gpu = std::to_string(major) + "." + std::to_string(minor);
  if (major < 8)
    throw tut::NoDeviceError("gpu7 runs on the FP64 tensor cores (mma.sync on doubles), which need compute "
                             "capability 8.0 or newer; this GPU is " + gpu);
  cudaFuncAttributes built;
  CUDA_CHECK(cudaFuncGetAttributes(&built, kernel));
  if (built.ptxVersion < 80)
    throw tut::NoDeviceError("gpu7's kernel was compiled for compute capability " + std::to_string(built.ptxVersion / 10) + "." +
                             std::to_string(built.ptxVersion % 10) + ", which has no FP64 mma; this GPU is " + gpu +
                             ": configure with meson setup -Dcuda-arch=" + std::to_string(major * 10 + minor));
}

// Once per tiling: the checks, and the opt-in to more than 48 KiB of shared memory.
template <class T>
void prepare() {
  static const bool ready = [] {
    for (const auto kernel : {tensor_core_tiles<T, 1>, tensor_core_tiles<T, 2>}) {
      require_fp64_tensor_cores(kernel);
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(T::kSharedBytes)));
    }
    return true;
  }();
  (void)ready;
}

// The same for gpu8's stream-K kernel (compiled only for the tilings gpu8 uses).
template <class T>
void prepare_stream_k() {
  static const bool ready = [] {
    prepare<T>();
    for (const auto kernel : {stream_k_tiles<T, 1>, stream_k_tiles<T, 2>})
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(T::kSharedBytes)));
    return true;
  }();
  (void)ready;
}

// Pairs of doubles (16-byte copies) where k and n are even and the matrices start on 16 bytes,
// else single doubles (8-byte copies): the kernel for one or the other, in blocks of T's shape,
// k split into `splits` shares (partial products into C, C + m n, ...).
bool copies_in_pairs(int n, int k, const double* A, const double* B, const double* C) {
  const auto on_16_bytes = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  return k % 2 == 0 && n % 2 == 0 && on_16_bytes(A) && on_16_bytes(B) && on_16_bytes(C);
}

template <class T>
void launch_split(int m, int n, int k, int splits, const double* A, const double* B, double* C, cudaStream_t stream) {
  prepare<T>();
  const auto kernel = copies_in_pairs(n, k, A, B, C) ? tensor_core_tiles<T, 2> : tensor_core_tiles<T, 1>;
  const dim3 grid(blocks_for(n, T::BN), blocks_for(m, T::BM), splits);
  kernel<<<grid, T::kThreads, T::kSharedBytes, stream>>>(m, n, k, A, B, C);
  CUDA_CHECK_LAUNCH();
}

// gpu8's stream-K in `blocks` blocks (no more than are resident at once): `partials` holds
// blocks x bm x bn doubles, `ready` blocks flags, all zero.
template <class T>
void launch_stream_k(int m, int n, int k, int blocks, const double* A, const double* B, double* C, double* partials,
                     unsigned* ready, cudaStream_t stream) {
  prepare_stream_k<T>();
  const auto kernel = copies_in_pairs(n, k, A, B, C) ? stream_k_tiles<T, 2> : stream_k_tiles<T, 1>;
  kernel<<<blocks, T::kThreads, T::kSharedBytes, stream>>>(m, n, k, A, B, C, partials, ready);
  CUDA_CHECK_LAUNCH();
}

template <class T>
void launch(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  launch_split<T>(m, n, k, 1, A, B, C, stream);
}

// How many blocks of T's shape an SM holds at once (registers and shared memory decide).
template <class T, bool STREAM_K = false>
int blocks_per_sm() {
  int blocks = 0;
  if constexpr (STREAM_K) {
    prepare_stream_k<T>();
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, stream_k_tiles<T, 1>, T::kThreads, T::kSharedBytes));
  } else {
    prepare<T>();
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tensor_core_tiles<T, 2>, T::kThreads, T::kSharedBytes));
  }
  return blocks;
}

// 128x128 of C per block of 8 warps, each warp 32x64 (2 x 8 products of 16x8x16), k-tiles of 32 in
// three stages (3 x 69 KiB of shared memory, one block per SM).
using Default = Tiling<128, 128, 32, 4, 2, 3, 16>;

}  // namespace

extern "C" void matmult_gpu7(int m, int n, int k, double* A, double* B, double* C) {
  matmult_on_device(m, n, k, A, B, C, launch<Default>);
}

// Swept by the benchmark and checked by the tests, each one change from the default.
constexpr MatmulVariant kSweep[] = {
    {"gpu7_k8", launch<Tiling<128, 128, 32, 4, 2, 3, 8>>},        // 16x8x8 products
    {"gpu7_8x8x4", launch<Tiling<128, 128, 32, 4, 2, 3, 4>>},     // 8x8x4 products, the 8.x shape
    {"gpu7_64x32", launch<Tiling<128, 128, 32, 2, 4, 3, 16>>},    // warp tiles of 64x32
    {"gpu7_2stages", launch<Tiling<128, 128, 32, 4, 2, 2, 16>>},  // one k-tile in flight, not two
    {"gpu7_bk16", launch<Tiling<128, 128, 16, 4, 2, 4, 16>>},     // k-tiles of 16, four stages
    {"gpu7_bk16_3stages", launch<Tiling<128, 128, 16, 4, 2, 3, 16>>},
    {"gpu7_4warps", launch<Tiling<128, 64, 32, 4, 1, 2, 16>>},    // 128x64 tiles: two blocks per SM
};
const MatmulCode matmul_gpu7{matmult_gpu7, launch<Default>, kSweep};

// The kernel in three tile shapes, for the types built on it (gpu8).
template <class T>
constexpr TensorCoreTiles tiles_of() {
  return {T::BM, T::BN, T::BK, blocks_per_sm<T>, launch_split<T>, blocks_per_sm<T, true>, launch_stream_k<T>};
}
const TensorCoreTiles gpu7_tiles[kGpu7TileShapes] = {tiles_of<Default>(), tiles_of<Tiling<128, 64, 32, 4, 1, 2, 16>>(),
                                                     tiles_of<Tiling<64, 64, 32, 2, 2, 3, 16>>()};
