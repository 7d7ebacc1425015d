// The multi-GPU stages on real GPUs (at least 2 visible, else the program exits 77: SKIP):
// multi and nccl with 2 .. 4 GPUs must equal gpu2 bit for bit, for rows that split unevenly;
// and a deliberately wrong exchange (the halo one iteration late) must be rejected. Its main
// is gpu_test_main.cpp built with TUT_MIN_GPUS=2.
#include "check.h"
#include "poisson_rows.h"
#include "poisson_test_support.h"

namespace {

int visible_gpus() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

class PoissonMultiGpuTest : public testing::TestWithParam<const PoissonStage*> {};

}  // namespace

// The single-GPU tests of poisson_test_support.h are the gpu program's, not this one's.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PoissonStageTest);

INSTANTIATE_TEST_SUITE_P(poisson, PoissonMultiGpuTest,
                         testing::ValuesIn(tut::stages_on(poisson_stages(), tut::Side::multigpu)),
                         stage_param_name<PoissonStage>);

TEST_P(PoissonMultiGpuTest, MatchesGpu2ExactlyOnEveryGpuCount) {
  for (int gpus = 2; gpus <= std::min(visible_gpus(), 4); ++gpus)
    for (int N : {37, 129, 1001}) {
      const PoissonProblem p = radiator_problem(N, 11);
      const std::vector<double> want = solve_with(stage_called("gpu2"), p, 40);
      const testing::AssertionResult ok = same_field(*GetParam(), solve_with(*GetParam(), p, 40, gpus), want, p.grid,
                                                     0.0, "gpu2 on " + std::to_string(gpus) + " GPUs");
      EXPECT_TRUE(ok);
      if (!ok) return;
    }
}

namespace {

// Wrong on purpose: each block sends its rows of the previous iteration (in(t) instead of
// out(t)), so every halo arrives one iteration late. The blocks run one stream each and wait
// for each other after every iteration: simpler than multi's overlap, and wrong every time.
SolveResult late_halo_solve(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  RowBlocks grid(p, u, o);
  std::vector<RowBlock>& blocks = grid.held();
  const size_t w = size_t(grid.width());
  grid.start_clock();
  for (int t = 0; t < o.max_iterations; ++t) {
    for (RowBlock& block : blocks) grid.update_rows(block, t, 1, block.rows, block.edge);
    for (size_t q = 0; q + 1 < blocks.size(); ++q) {
      RowBlock &block = blocks[q], &next = blocks[q + 1];
      CUDA_CHECK(cudaMemcpyPeerAsync(next.out(t), next.device, block.in(t) + block.rows * w, block.device,
                                     grid.row_bytes(), block.edge));
      CUDA_CHECK(cudaMemcpyPeerAsync(block.out(t) + (block.rows + 1) * w, block.device, next.in(t) + w, next.device,
                                     grid.row_bytes(), next.edge));
    }
    for (RowBlock& block : blocks) CUDA_CHECK(cudaStreamSynchronize(block.edge));
  }
  return grid.finish(u, o.max_iterations);
}

const PoissonStage late_halo = {{"wrong-late-halo", "", tut::Side::multigpu, "tests/03-poisson/test_multigpu.cu"},
                                {late_halo_solve}};

}  // namespace

TEST(SuiteRejectsWrongStage, HaloExchangedOneIterationLate) {
  const PoissonProblem p = radiator_problem(129, 3);
  const std::vector<double> want = solve_with(stage_called("gpu2"), p, 40);
  EXPECT_FALSE(same_field(late_halo, solve_with(late_halo, p, 40, 2), want, p.grid, 0.0, "gpu2"));
}
