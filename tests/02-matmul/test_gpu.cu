// The GPU types of chapter 02-matmul (run by gpu_test_main.cpp, skipped without a GPU), the
// gpu4 sweep variants, and deliberately wrong kernels the checks must reject. gpu8's and gpu9's
// own mistakes (a share left out of the sum, a copy that does not wait) are those stages built
// without one step: the stress suite's (meson.build, stress_removals).
#include "async_copy.h"
#include "check.h"
#include "matmul_test_support.h"

INSTANTIATE_TEST_SUITE_P(matmul, MatmulTypeTest, testing::ValuesIn(tut::stages_on(matmul_stages(), tut::Side::gpu)),
                         stage_param_name<MatmulStage>);

// The GPU types for which `keep` holds.
template <class Keep>
std::vector<const MatmulStage*> gpu_types_where(Keep keep) {
  std::vector<const MatmulStage*> kept;
  for (const MatmulStage* s : tut::stages_on(matmul_stages(), tut::Side::gpu))
    if (keep(*s)) kept.push_back(s);
  return kept;
}

INSTANTIATE_TEST_SUITE_P(matmul, MatmulLargerShapeTest,
                         testing::ValuesIn(gpu_types_where([](const MatmulStage& s) { return std::string(s.name) != "gpu1"; })),
                         stage_param_name<MatmulStage>);

// The types that plan each shape (gpu8).
class MatmulPlannedTypeTest : public MatmulTypeTest {};
INSTANTIATE_TEST_SUITE_P(matmul, MatmulPlannedTypeTest,
                         testing::ValuesIn(gpu_types_where([](const MatmulStage& s) { return s.code.plan != nullptr; })),
                         stage_param_name<MatmulStage>);

namespace {

__global__ void drops_last_term(int m, int n, int k, const double* A, const double* B, double* C) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  double sum = 0;
  for (int l = 0; l < k - 1; ++l) sum += A[size_t(i) * k + l] * B[size_t(l) * n + j];  // l < k - 1: one short
  C[size_t(i) * n + j] = sum;
}

__global__ void skips_last_column(int m, int n, int k, const double* A, const double* B, double* C) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= n - 1) return;  // j >= n - 1: the last column is never written
  double sum = 0;
  for (int l = 0; l < k; ++l) sum += A[size_t(i) * k + l] * B[size_t(l) * n + j];
  C[size_t(i) * n + j] = sum;
}

// gpu6's mistake when k is not a multiple of its slice of 8: the last, partial slice is skipped.
__global__ void skips_partial_slice(int m, int n, int k, const double* A, const double* B, double* C) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  double sum = 0;
  for (int l = 0; l < k - k % 8; ++l) sum += A[size_t(i) * k + l] * B[size_t(l) * n + j];
  C[size_t(i) * n + j] = sum;
}

// gpu7's pipeline on 16x16 tiles (without tensor cores): k-tiles copied into kStages shared
// stages by cp.async, kStages - 1 ahead. Waiting until IN_FLIGHT = kStages - 2 groups remain is
// right; kStages - 1 reads a stage whose copies may not have landed yet.
constexpr int kTile = 16, kStages = 3;
template <int IN_FLIGHT>
__global__ void copy_pipeline(int m, int n, int k, const double* A, const double* B, double* C) {
  __shared__ double a[kStages][kTile][kTile], b[kStages][kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y, i = blockIdx.y * kTile + ty, j = blockIdx.x * kTile + tx;
  const int tiles = (k + kTile - 1) / kTile;
  auto start = [&](int tile) {
    if (tile < tiles) {
      const int l = tile * kTile;
      const bool a_inside = i < m && l + tx < k, b_inside = l + ty < k && j < n;
      copy_async<1>(&a[tile % kStages][ty][tx], a_inside ? A + size_t(i) * k + l + tx : A, a_inside);
      copy_async<1>(&b[tile % kStages][ty][tx], b_inside ? B + size_t(l + ty) * n + j : B, b_inside);
    }
    close_copy_group();
  };
  for (int tile = 0; tile < kStages - 1; ++tile) start(tile);
  double sum = 0;
  for (int tile = 0; tile < tiles; ++tile) {
    wait_for_copy_groups<IN_FLIGHT>();
    __syncthreads();
    start(tile + kStages - 1);
    for (int l = 0; l < kTile; ++l) sum += a[tile % kStages][ty][l] * b[tile % kStages][l][tx];
  }
  if (i < m && j < n) C[size_t(i) * n + j] = sum;
}

// gpu5's idea on 16x16 tiles, without the barrier between a tile's products and the next tile's
// loads: a fast warp may overwrite a tile that a slow one still reads. The numbers usually come
// out right anyway; racecheck reports the hazard at once (meson test sanitize-rejects-missing-barrier).
__global__ void tiles_without_second_barrier(int m, int n, int k, const double* A, const double* B, double* C) {
  __shared__ double a[16][16], b[16][16];
  const int tx = threadIdx.x, ty = threadIdx.y, i = blockIdx.y * 16 + ty, j = blockIdx.x * 16 + tx;
  double sum = 0;
  for (int l0 = 0; l0 < k; l0 += 16) {
    a[ty][tx] = (i < m && l0 + tx < k) ? A[size_t(i) * k + l0 + tx] : 0.0;
    b[ty][tx] = (l0 + ty < k && j < n) ? B[size_t(l0 + ty) * n + j] : 0.0;
    __syncthreads();
    for (int l = 0; l < 16; ++l) sum += a[ty][l] * b[l][tx];
  }
  if (i < m && j < n) C[size_t(i) * n + j] = sum;
}

template <void (*Kernel)(int, int, int, const double*, const double*, double*)>
void launch(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  const dim3 block(16, 16), grid(blocks_for(n, 16), blocks_for(m, 16));
  Kernel<<<grid, block, 0, stream>>>(m, n, k, A, B, C);
  CUDA_CHECK_LAUNCH();
}

const MatmulStage short_sum = {{"wrong-sum", "", tut::Side::gpu, "tests/02-matmul/test_gpu.cu"},
                               MatmulCode{nullptr, launch<drops_last_term>}};
const MatmulStage short_row = {{"wrong-column", "", tut::Side::gpu, "tests/02-matmul/test_gpu.cu"},
                               MatmulCode{nullptr, launch<skips_last_column>}};
const MatmulStage short_slices = {{"wrong-slices", "", tut::Side::gpu, "tests/02-matmul/test_gpu.cu"},
                                  MatmulCode{nullptr, launch<skips_partial_slice>}};
const MatmulStage early_read = {{"wrong-early-read", "", tut::Side::gpu, "tests/02-matmul/test_gpu.cu"},
                                MatmulCode{nullptr, launch<copy_pipeline<kStages - 1>>}};
const MatmulStage timely_read = {{"pipeline", "", tut::Side::gpu, "tests/02-matmul/test_gpu.cu"},
                                 MatmulCode{nullptr, launch<copy_pipeline<kStages - 2>>}};

// cp.async is compiled in only for compute capability 8.0 and newer (and such code loads only
// on such a GPU).
const MatmulStage no_barrier = {{"wrong-no-barrier", "", tut::Side::gpu, "tests/02-matmul/test_gpu.cu"},
                                MatmulCode{nullptr, launch<tiles_without_second_barrier>}};

bool has_async_copies() {
  cudaFuncAttributes built;
  const bool loaded = cudaFuncGetAttributes(&built, copy_pipeline<kStages - 2>) == cudaSuccess;
  (void)cudaGetLastError();
  return loaded && built.ptxVersion >= 80;
}

}  // namespace

TEST(SuiteRejectsWrongType, KernelThatDropsTheLastTerm) {
  EXPECT_FALSE(matches_reference(short_sum, {17, 19, 23}));
}

TEST(SuiteRejectsWrongType, KernelThatSkipsTheLastColumn) {
  EXPECT_FALSE(matches_reference(short_row, {17, 19, 23}));
}

TEST(SuiteRejectsWrongType, KernelThatSkipsThePartialLastSlice) {
  EXPECT_FALSE(matches_reference(short_slices, {17, 19, 23}));
}

// The same pipeline passes when it waits for the right group, so the early read is what is caught.
TEST(SuiteRejectsWrongType, PipelineThatReadsAStageBeforeItsCopiesLand) {
  if (!has_async_copies()) GTEST_SKIP() << "cp.async needs code for compute capability 8.0 or newer (GPU and -Dcuda-arch)";
  for (const Shape& sh : {Shape{17, 19, 23}, Shape{384, 384, 384}}) {
    EXPECT_TRUE(matches_reference(timely_read, sh));
    EXPECT_FALSE(matches_reference(early_read, sh));
  }
}

// Not a check of its own: the target that the sanitize suite must catch (its numbers are not
// asserted, since a race may or may not change them).
TEST(SanitizerTarget, TiledKernelWithoutItsSecondBarrier) {
  const testing::AssertionResult numbers = matches_reference(no_barrier, {96, 80, 112});
  RecordProperty("numbers", numbers ? "right" : "wrong");
}

// A type that plans each shape (gpu8), on the skinny ones (one tile row, or k of two k-tiles)
// and k of 1, 7 and 4097 (one past the k-tiles), in every kind of plan its sweep forces.
TEST_P(MatmulPlannedTypeTest, MatchesReferenceOnSkinnyShapesAndOddK) {
  try {
    for (const MatmulStage& s : type_and_variants(*GetParam()))
      for (const Shape& sh : {Shape{64, 2048, 2048}, Shape{2048, 2048, 64}, Shape{1024, 64, 2048}, Shape{130, 70, 1},
                              Shape{130, 70, 7}, Shape{37, 45, 4097}}) {
        const testing::AssertionResult ok = matches_reference(s, sh);
        EXPECT_TRUE(ok);
        if (!ok) return;
      }
  } catch (const tut::NoDeviceError& e) {
    GTEST_SKIP() << e.what();
  }
}

