// matmul gpu7: the FP64 tensor cores, through warp-level mma.sync on doubles.
//   run:  build/chapters/02-matmul/matmult_f gpu7 4096 4096 4096
//   test: meson test -C build matmul-gpu7 matmul-gpu7-idea --print-errorlogs
// Change from gpu6: the multiply-adds leave the FP64 units for the tensor cores. Each warp computes
// a 32x64 tile of C as 2 x 8 products of 16x8 tiles, each product one mma instruction that the 32
// threads issue together (16x8x16 on Hopper), every thread holding its share of A, B and C in
// registers in the layout the PTX manual fixes for the shape. A block of 8 warps (a 128x128 tile
// of C) stages k-tiles of 32 of A and B in shared memory with cp.async, two tiles ahead, so the
// copies of later tiles are in flight while the warps multiply the current one. Shared rows are
// padded so that fragment loads see no bank conflicts, and tiles past the matrices' edges are
// filled with zeros by the copies themselves. That tile is chapters/02-matmul/tensor_core_tile.cuh
// (gpu8 builds its kernels from it too); this file is the kernel that gives each block its tile,
// and the launch.
// Why it should help: one 16x8x16 mma is 2048 multiply-adds per warp, and the tensor cores' FP64
// rate is twice that of the FP64 units (chapter 00's `peak`).
// What still limits it: the tensor pipe, busy 84% of the time in Nsight Compute (cuBLAS: 98%);
// the rest is the barrier and the fragment loads at the start of each k-tile, when the 8 warps
// of the SM's one block all wait at once. Variants: chapters/02-matmul/plot_matmul.py --markdown.
// Needs FP64 tensor cores: compute capability 8.0 (8x8x4 shape) or 9.0 (16x8x8, 16x8x16).
#include "check.h"
#include "device.h"
#include "matmul.h"
#include "tensor_core_tile.cuh"

namespace {

// One block per tile of C, all of k: the products of every k-tile, then the tile stored.
template <class T, int WIDTH>
__global__ void __launch_bounds__(T::kThreads) tensor_core_tiles(int m, int n, int k, const double* __restrict__ A,
                                                                 const double* __restrict__ B, double* __restrict__ C) {
  // EXERCISE: this block's tile of C, at row blockIdx.y * BM and column blockIdx.x * BN: the
  //   warps' accumulators (zero), the products of all of k's tiles added to them
  //   (multiply_k_tiles), then the tile stored (store_tile)
  const int row0 = blockIdx.y * T::BM, col0 = blockIdx.x * T::BN;
  Accumulators<T> acc = {};
  multiply_k_tiles<T, WIDTH>(m, n, k, A, B, row0, col0, 0, (k + T::BK - 1) / T::BK, acc);
  store_tile<T, WIDTH>(C, m, n, row0, col0, acc);
}

// Once per tiling: the checks, and the opt-in to more than 48 KiB of shared memory.
template <class T>
void prepare() {
  static const bool ready = [] {
    for (const auto kernel : {tensor_core_tiles<T, 1>, tensor_core_tiles<T, 2>}) {
      require_fp64_tensor_cores("gpu7", kernel);
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(T::kSharedBytes)));
    }
    return true;
  }();
  (void)ready;
}

template <class T>
void launch(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  prepare<T>();
  const auto kernel = copies_in_pairs(n, k, A, B, C) ? tensor_core_tiles<T, 2> : tensor_core_tiles<T, 1>;
  kernel<<<dim3(blocks_for(n, T::BN), blocks_for(m, T::BM)), T::kThreads, T::kSharedBytes, stream>>>(m, n, k, A, B, C);
  CUDA_CHECK_LAUNCH();
}

// 128x128 of C per block of 8 warps, each warp 32x64 (2 x 8 products of 16x8x16), k-tiles of 32 in
// three stages (3 x 69 KiB of shared memory, one block per SM).
using Default = Tiling<128, 128, 32, 4, 2, 3, 16>;

}  // namespace

extern "C" void matmult_gpu7(int m, int n, int k, double* A, double* B, double* C) {
  DeviceProduct on_gpu(m, n, k, A, B);
  launch<Default>(m, n, k, on_gpu.A.get(), on_gpu.B.get(), on_gpu.C.get(), nullptr);
  on_gpu.copy_c_to(C);
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
