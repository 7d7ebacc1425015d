// The single-GPU stages of chapter 03-poisson, the multi stage with several row blocks on
// whatever GPUs there are (one is enough: blocks may share a GPU), and a wrong kernel. (gpu4's and
// gpu5's wrong variants are the stages built without one step: the stress suite's builds.)
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

// The stages that fuse iterations into passes (gpu4, gpu5), at every depth they offer. gpu4 in
// tiles (N up to 1024 at depths 2 to 8; 192 = 8 x 24 stored at depth 4, 224 = 14 x 16 at 8) and
// in strips (N = 1031 and 1120 at every depth, 1120 = 10 x 112 stored columns at 8; depth 16 at
// every size, 192 = 2 x 96). gpu5 with the whole field held (every size at depths 2 and 4, all but
// 1120 at 8, 37 to 224 at 16, on a GPU of 132 SMs) and in patches (the rest). Sizes the stored
// points divide and sizes they do not, iteration counts each depth divides and not (the
// shallower passes, the trades of edges), and the tolerance check on its own iteration (23 = a
// deep pass, shallower ones and the last pass of one).
TEST(PoissonFusedStages, MatchReferenceAtEveryDepth) {
  for (const PoissonStage* s : tut::stages_on(poisson_stages(), tut::Side::gpu)) {
    if (!s->code.default_depth) continue;
    for (int depth : {2, 4, 8, 16})
      for (int N : {37, 192, 224, 1031, 1120})
        for (int iterations : {1, 16, 23, 100}) {
          const PoissonProblem p = radiator_problem(N, 5);
          std::vector<double> u = p.u0;
          SolveOptions o;
          o.max_iterations = iterations;
          o.depth = depth;
          try {
            s->code.solve(p, u, o);
          } catch (const tut::NoDeviceError& e) {
            GTEST_SKIP() << e.what();
          }
          const testing::AssertionResult ok = same_field(*s, u, reference_jacobi(p, iterations), p.grid, 1e-12,
                                                         "the reference after " + std::to_string(iterations) +
                                                             " iterations at depth " + std::to_string(depth));
          EXPECT_TRUE(ok);
          if (!ok) return;
        }
  }
}

// gpu5 in patches over many rounds: on 132 SMs, N = 1120 takes 2 patches with rings of 480 at
// depth 8 and 144 at 16, so 1000 iterations are 2 and 6 full rounds, a shorter one and the
// last of one, each loading what the round before stored. In calls of 250 (a tolerance checked
// every 250 iterations, never reached), the change norm it reports must be that of the
// reference's last two fields: the field before the last must be right as well.
TEST(PoissonFusedStages, Gpu5InPatchesOverManyRounds) {
  const PoissonStage& gpu5 = stage_called("gpu5");
  const PoissonProblem p = radiator_problem(1120, 9);
  const std::vector<double> want = reference_jacobi(p, 1000), before = reference_jacobi(p, 999);
  double change = 0;
  for (size_t at = 0; at < want.size(); ++at) change += (want[at] - before[at]) * (want[at] - before[at]);
  change = std::sqrt(change);  // the boundary does not change
  for (int depth : {8, 16})
    for (int check_every : {0, 250}) {
      std::vector<double> u = p.u0;
      SolveOptions o;
      o.max_iterations = 1000;
      o.depth = depth;
      o.tolerance = check_every ? 1e-300 : 0;
      o.check_every = check_every ? check_every : 100;
      SolveResult r;
      try {
        r = gpu5.code.solve(p, u, o);
      } catch (const tut::NoDeviceError& e) {
        GTEST_SKIP() << e.what();
      }
      const std::string how = "at depth " + std::to_string(depth) + (check_every ? ", in calls of 250" : "");
      if (depth == 16)  // on GPUs of up to about 200 SMs; at depth 8, up to about 140
        EXPECT_NE(r.layout.find("patches"), std::string::npos) << "gpu5 held N = 1120 whole " << how << ": " << r.layout;
      EXPECT_TRUE(same_field(gpu5, u, want, p.grid, 1e-12, "the reference after 1000 iterations " + how));
      if (check_every) EXPECT_NEAR(r.change_norm, change, 1e-9 * change) << "the change norm it reports " << how;
    }
}

// gpu5 as the lesson times it from 2048^2 up: at its own depth, which there is 4, in patches
// (on 132 SMs, rings of 120 iterations: 250 are two full rounds and a short one).
TEST(PoissonFusedStages, Gpu5AtItsOwnDepthInPatchesAt2048) {
  const PoissonStage& gpu5 = stage_called("gpu5");
  const PoissonProblem p = radiator_problem(2048, 13);
  std::vector<double> u = p.u0;
  SolveOptions o;
  o.max_iterations = 250;
  SolveResult r;
  try {
    r = gpu5.code.solve(p, u, o);
  } catch (const tut::NoDeviceError& e) {
    GTEST_SKIP() << e.what();
  }
  EXPECT_EQ(gpu5.code.default_depth(2048), 4);
  EXPECT_NE(r.layout.find("patches"), std::string::npos) << "gpu5 held N = 2048 whole: " << r.layout;
  EXPECT_NE(r.layout.find("every 4 iterations"), std::string::npos) << "gpu5's plan at N = 2048: " << r.layout;
  EXPECT_TRUE(same_field(gpu5, u, reference_jacobi(p, 250), p.grid, 1e-12, "the reference after 250 iterations at its own depth"));
}

// The manufactured solution u = sin(pi x) sin(pi y): the fused stages converge to it, with the
// discretisation's error, which falls as h^2 (4x from N = 31 to N = 63).
TEST(PoissonFusedStages, ConvergeToTheManufacturedSolution) {
  for (const PoissonStage* s : tut::stages_on(poisson_stages(), tut::Side::gpu)) {
    if (!s->code.default_depth) continue;
    std::vector<double> errors;
    for (int N : {31, 63}) {
      try {
        errors.push_back(manufactured_error(*s, N, 100000));
      } catch (const tut::NoDeviceError& e) {
        GTEST_SKIP() << e.what();
      }
      ASSERT_GE(errors.back(), 0) << s->name << " did not converge at N = " << N;
    }
    EXPECT_GT(errors[0] / errors[1], 3.6) << s->name << ": errors " << errors[0] << " -> " << errors[1];
    EXPECT_LT(errors[0] / errors[1], 4.4) << s->name << ": errors " << errors[0] << " -> " << errors[1];
  }
}
