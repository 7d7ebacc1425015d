// The GPU types of chapter 02-matmul (run by gpu_test_main.cpp, skipped without a GPU), the
// gpu4 sweep variants, and deliberately wrong kernels the checks must reject.
#include "check.h"
#include "matmul_test_support.h"

INSTANTIATE_TEST_SUITE_P(matmul, MatmulTypeTest, testing::ValuesIn(tut::stages_on(matmul_stages(), tut::Side::gpu)),
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

}  // namespace

TEST(SuiteRejectsWrongType, KernelThatDropsTheLastTerm) {
  EXPECT_FALSE(matches_reference(short_sum, {17, 19, 23}));
}

TEST(SuiteRejectsWrongType, KernelThatSkipsTheLastColumn) {
  EXPECT_FALSE(matches_reference(short_row, {17, 19, 23}));
}
