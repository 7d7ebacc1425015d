// The CPU stages of chapter 03-poisson, the tolerance rule, the convergence of the method,
// and a deliberately wrong stage.
#include <cmath>

#include "poisson_test_support.h"

INSTANTIATE_TEST_SUITE_P(poisson, PoissonStageTest, testing::ValuesIn(tut::stages_on(poisson_stages(), tut::Side::cpu)),
                         stage_param_name<PoissonStage>);

// u = sin(pi x) sin(pi y): once Jacobi has converged, what is left is the discretisation
// error, which must fall as h^2, by 4 each time h halves (N + 1 doubles).
TEST(PoissonConvergence, ErrorFallsAsHSquared) {
  std::vector<double> errors;
  for (int N : {15, 31, 63}) {
    errors.push_back(manufactured_error(stage_called("cpu_omp"), N, 400000));
    ASSERT_GE(errors.back(), 0) << "did not converge at N = " << N;
  }
  for (size_t i = 1; i < errors.size(); ++i) {
    const double ratio = errors[i - 1] / errors[i];
    EXPECT_GT(ratio, 3.6) << "errors " << errors[i - 1] << " -> " << errors[i];
    EXPECT_LT(ratio, 4.4) << "errors " << errors[i - 1] << " -> " << errors[i];
  }
}

namespace {

// Wrong on purpose: never updates the last interior column.
void skips_last_column(const PoissonGrid& g, const double* f, const double* in, double* out) {
  const int w = g.width();
  const double h2 = g.h() * g.h();
  for (int r = 1; r <= g.N; ++r)
    for (int c = 1; c < g.N; ++c) {
      const size_t at = size_t(r) * w + c;
      out[at] = 0.25 * (in[at - 1] + in[at + 1] + in[at - w] + in[at + w] + h2 * f[at]);
    }
}

const PoissonStage wrong_cpu = {{"wrong-cpu", "", tut::Side::cpu, "tests/03-poisson/test_cpu.cpp"},
                                {iterate_on_host<skips_last_column>}};

// The reference's field with one point off by error_in_bounds times the tolerance the suite
// states, 1e-12 + 1e-12 |reference| (written out here, so that loosening it fails this test).
double error_in_bounds = 0;
SolveResult off_by_a_known_error(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  u = reference_jacobi(p, o.max_iterations);
  const size_t centre = size_t(p.grid.N / 2 + 1) * p.grid.width() + p.grid.N / 2 + 1;
  u[centre] += error_in_bounds * (1e-12 + 1e-12 * std::fabs(u[centre]));
  SolveResult r;
  r.iterations = o.max_iterations;
  return r;
}
const PoissonStage probe = {{"tolerance-probe", "", tut::Side::cpu, "tests/03-poisson/test_cpu.cpp"},
                            {off_by_a_known_error}};

// Wrong on purpose: solves once per N and hands the stored field back afterwards.
SolveResult caches_by_size(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  static int cached_N = -1;
  static std::vector<double> cached;
  if (p.grid.N != cached_N) cached = reference_jacobi(p, o.max_iterations), cached_N = p.grid.N;
  u = cached;
  SolveResult r;
  r.iterations = o.max_iterations;
  return r;
}
const PoissonStage caching = {
    {"caching", "results kept between calls", tut::Side::cpu, "tests/03-poisson/test_cpu.cpp"}, {caches_by_size}};

}  // namespace

TEST(SuiteRejectsWrongStage, ResultsKeptBetweenCallsOfTheSameSizes) {
  EXPECT_TRUE(matches_reference(caching, 37, 10, 1, 11));   // the first call computes
  EXPECT_FALSE(matches_reference(caching, 37, 10, 1, 23));  // the second hands the first back
}

TEST(SuiteRejectsWrongStage, CpuSweepThatSkipsTheLastColumn) {
  EXPECT_FALSE(matches_reference(wrong_cpu, 37, 10));
}

TEST(SuiteRejectsWrongStage, AnErrorJustPastTheToleranceButNotOneJustInside) {
  error_in_bounds = 0.9;
  EXPECT_TRUE(matches_reference(probe, 37, 10));
  error_in_bounds = 1.1;
  EXPECT_FALSE(matches_reference(probe, 37, 10));
}
