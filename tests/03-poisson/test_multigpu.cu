// The multi-GPU stages on real GPUs (at least 2 visible, else the program exits 77: SKIP):
// multi and nccl with 2 .. 4 GPUs must equal gpu2 bit for bit, for rows that split unevenly;
// and a deliberately wrong exchange (the halo one iteration late) must be rejected. Its main
// is gpu_test_main.cpp built with TUT_MIN_GPUS=2.
#include "check.h"
#include "poisson_parts.h"
#include "poisson_test_support.h"

namespace {

int visible_gpus() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

class PoissonMultiGpuTest : public testing::TestWithParam<const PoissonStage*> {};

}  // namespace

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

// Wrong on purpose: sends the rows of the previous iteration (in(t) instead of out(t)), so
// every halo arrives one iteration late.
SolveResult late_halo_solve(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  return iterate_partitioned(p, u, o, Layout{o.parts}, [](Partition& partition, int t) {
    std::vector<Part>& parts = partition.parts();
    const int w = partition.width();
    for (size_t q = 0; q + 1 < parts.size(); ++q) {
      Part &part = parts[q], &below = parts[q + 1];
      CUDA_CHECK(cudaMemcpyPeerAsync(below.out(t), below.device, part.in(t) + size_t(part.rows) * w, part.device,
                                     partition.row_bytes(), part.edge));
      CUDA_CHECK(cudaMemcpyPeerAsync(part.out(t) + size_t(part.rows + 1) * w, part.device, below.in(t) + w,
                                     below.device, partition.row_bytes(), below.edge));
    }
  });
}

const PoissonStage late_halo = {{"wrong-late-halo", "", tut::Side::multigpu, "tests/03-poisson/test_multigpu.cu"},
                                {late_halo_solve}};

}  // namespace

TEST(SuiteRejectsWrongStage, HaloExchangedOneIterationLate) {
  const PoissonProblem p = radiator_problem(129, 3);
  const std::vector<double> want = solve_with(stage_called("gpu2"), p, 40);
  EXPECT_FALSE(same_field(late_halo, solve_with(late_halo, p, 40, 2), want, p.grid, 0.0, "gpu2"));
}
