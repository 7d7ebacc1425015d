// The single-GPU stages of chapter 03-poisson, the multi stage with several row blocks on
// whatever GPUs there are (one is enough: blocks may share a GPU), and a wrong kernel.
#include "check.h"
#include "poisson_test_support.h"

INSTANTIATE_TEST_SUITE_P(poisson, PoissonStageTest, testing::ValuesIn(tut::stages_on(poisson_stages(), tut::Side::gpu)),
                         stage_param_name<PoissonStage>);

// Row blocks exchange halos every iteration: with 1 to 4 blocks, rows that split unevenly
// (37 = 10 + 9 + 9 + 9), the result must be gpu2's, bit for bit.
TEST(PoissonMultiOnAnyGpus, MatchesGpu2ExactlyForAnyNumberOfBlocks) {
  for (int N : {1, 3, 37, 129})
    for (int parts : {1, 2, 3, 4}) {
      const PoissonProblem p = radiator_problem(N, 7);
      const std::vector<double> want = solve_with(stage_called("gpu2"), p, 31);
      const PoissonStage& multi = stage_called("multi");
      const testing::AssertionResult ok =
          same_field(multi, solve_with(multi, p, 31, parts), want, p.grid, 0.0,
                     "gpu2 with " + std::to_string(parts) + " row blocks");
      EXPECT_TRUE(ok);
      if (!ok) return;
    }
}

namespace {

// Wrong on purpose: forgets the source term h^2 f. (A first version here updated in place,
// a race; on the H200 it computed exact Jacobi at the test's size, because the whole grid ran
// as one wave of blocks and every load came before every store. A wrong stage must be wrong
// every time.)
__global__ void without_source(int N, double, const double*, const double* in, double* out) {
  const int w = N + 2, c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < 1 || r < 1 || c > N || r > N) return;
  const size_t at = size_t(r) * w + c;
  out[at] = 0.25 * (in[at - 1] + in[at + 1] + in[at - w] + in[at + w]);
}

void without_source_advance(const PoissonGrid& g, const double* f, double*& cur, double*& next, int count,
                            cudaStream_t stream) {
  const dim3 block(32, 8), grid(blocks_for(g.width(), 32), blocks_for(g.width(), 8));
  for (int i = 0; i < count; ++i) {
    without_source<<<grid, block, 0, stream>>>(g.N, g.h() * g.h(), f, cur, next);
    std::swap(cur, next);
  }
  CUDA_CHECK_LAUNCH();
}

const PoissonStage wrong_gpu = {{"wrong-no-source", "", tut::Side::gpu, "tests/03-poisson/test_gpu.cu"},
                                {iterate_on_device<without_source_advance>}};

}  // namespace

TEST(SuiteRejectsWrongStage, KernelThatForgetsTheSource) {
  EXPECT_FALSE(matches_reference(wrong_gpu, 129, 20));
}
