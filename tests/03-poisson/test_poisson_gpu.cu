// The single-GPU stages of chapter 03-poisson, the multi stage with several row blocks on
// whatever GPUs there are (one is enough: blocks may share a GPU), and a wrong kernel.
#include "check.h"
#include "poisson_test_support.h"

class PoissonGpuTest : public testing::TestWithParam<const PoissonStage*> {};
INSTANTIATE_TEST_SUITE_P(Gpu, PoissonGpuTest, testing::Values(&poisson_gpu1, &poisson_gpu2, &poisson_gpu3), param_name);

TEST_P(PoissonGpuTest, MatchesReferenceOnAwkwardSizes) {
  const bool one_thread = GetParam() == &poisson_gpu1;
  for (int N : awkward_sizes())
    for (int iterations : {1, 51, 250}) {  // 250: two graph replays and 50 single launches in gpu3
      if (one_thread && iterations > 51) continue;
      const testing::AssertionResult ok = matches_reference(*GetParam(), N, iterations);
      EXPECT_TRUE(ok);
      if (!ok) return;
    }
}

TEST_P(PoissonGpuTest, StopsAtTheTolerance) {
  const PoissonProblem p = radiator_problem(16);
  std::vector<double> u = p.u0;
  SolveOptions o;
  o.max_iterations = 100000;
  o.tolerance = 1e-3;
  o.check_every = 10;
  const SolveResult r = GetParam()->solve(p, u, o);
  EXPECT_LT(r.iterations, o.max_iterations);
  EXPECT_LT(r.change_norm, o.tolerance);
  EXPECT_GE(r.change_norm, 0.0);
}

// Row blocks exchange halos every iteration: with 1 to 4 blocks, rows that split unevenly
// (37 = 10 + 9 + 9 + 9), the result must be gpu2's, bit for bit.
TEST(PoissonMultiOnAnyGpus, MatchesGpu2ExactlyForAnyNumberOfBlocks) {
  for (int N : {1, 3, 37, 129})
    for (int parts : {1, 2, 3, 4}) {
      const PoissonProblem p = radiator_problem(N, 7);
      const std::vector<double> want = solve_with(poisson_gpu2, p, 31);
      const testing::AssertionResult ok =
          same_field(poisson_multi, solve_with(poisson_multi, p, 31, parts), want, p.grid, 0.0,
                     "gpu2 with " + std::to_string(parts) + " row blocks");
      EXPECT_TRUE(ok);
      if (!ok) return;
    }
}

namespace {

// Wrong on purpose: updates in place, so a thread may read a neighbour that is already new
// (a race; Gauss-Seidel in an undefined order, not Jacobi).
__global__ void in_place(int N, double h2, const double* f, double* u) {
  const int w = N + 2, c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < 1 || r < 1 || c > N || r > N) return;
  const size_t at = size_t(r) * w + c;
  u[at] = 0.25 * (u[at - 1] + u[at + 1] + u[at - w] + u[at + w] + h2 * f[at]);
}

void in_place_advance(const PoissonGrid& g, const double* f, double*& cur, double*&, int count, cudaStream_t stream) {
  const dim3 block(32, 8), grid(blocks_for(g.width(), 32), blocks_for(g.width(), 8));
  for (int i = 0; i < count; ++i) in_place<<<grid, block, 0, stream>>>(g.N, g.h() * g.h(), f, cur);
  CUDA_CHECK_LAUNCH();
}

SolveResult in_place_solve(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  return iterate_on_device(p, u, o, in_place_advance);
}

const PoissonStage wrong_gpu = {"wrong-in-place", "", true, false, in_place_solve, "tests/03-poisson/test_poisson_gpu.cu"};

}  // namespace

TEST(SuiteRejectsWrongStage, KernelThatUpdatesInPlace) {
  EXPECT_FALSE(matches_reference(wrong_gpu, 129, 20));
}
