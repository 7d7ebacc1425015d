// The CPU types of chapter 02-matmul, and a deliberately wrong one the checks must reject.
#include <algorithm>

#include "matmul_test_support.h"

INSTANTIATE_TEST_SUITE_P(matmul, MatmulTypeTest, testing::ValuesIn(tut::stages_on(matmul_stages(), tut::Side::cpu)),
                         stage_param_name<MatmulStage>);
INSTANTIATE_TEST_SUITE_P(matmul, MatmulLargerShapeTest, testing::ValuesIn(tut::stages_on(matmul_stages(), tut::Side::cpu)),
                         stage_param_name<MatmulStage>);

namespace {

// Wrong on purpose: drops the last term of every sum (the classic l < k - 1).
void drops_last_term(int m, int n, int k, double* A, double* B, double* C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int l = 0; l < k - 1; ++l) sum += A[size_t(i) * k + l] * B[size_t(l) * n + j];
      C[size_t(i) * n + j] = sum;
    }
}

const MatmulStage wrong_cpu = {{"wrong-cpu", "drops the last term", tut::Side::cpu, "tests/02-matmul/test_cpu.cpp"},
                               MatmulCode{drops_last_term}};

// The exact product (as the reference computes it) with an error of error_in_k_eps * k * eps
// added to one element: the probe that pins the suite's tolerance.
double error_in_k_eps = 0;
void off_by_a_known_error(int m, int n, int k, double* A, double* B, double* C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      long double sum = 0;
      for (int l = 0; l < k; ++l) sum += (long double)A[size_t(i) * k + l] * B[size_t(l) * n + j];
      C[size_t(i) * n + j] = double(sum);
    }
  C[size_t(m / 2) * n + n / 2] += error_in_k_eps * k * DBL_EPSILON;
}

const MatmulStage probe = {{"tolerance-probe", "", tut::Side::cpu, "tests/02-matmul/test_cpu.cpp"},
                           MatmulCode{off_by_a_known_error}};

// Wrong on purpose: computes once per m, n, k and hands the stored product back afterwards.
void caches_by_size(int m, int n, int k, double* A, double* B, double* C) {
  static int cached_m = -1, cached_n = -1, cached_k = -1;
  static std::vector<double> cached;
  if (m != cached_m || n != cached_n || k != cached_k) {
    cached.assign(size_t(m) * n, 0.0);
    for (int i = 0; i < m; ++i)
      for (int l = 0; l < k; ++l)
        for (int j = 0; j < n; ++j) cached[size_t(i) * n + j] += A[size_t(i) * k + l] * B[size_t(l) * n + j];
    cached_m = m, cached_n = n, cached_k = k;
  }
  std::copy(cached.begin(), cached.end(), C);
}

const MatmulStage caching = {{"caching", "results kept between calls", tut::Side::cpu, "tests/02-matmul/test_cpu.cpp"},
                             MatmulCode{caches_by_size}};

}  // namespace

TEST(SuiteRejectsWrongType, ResultsKeptBetweenCallsOfTheSameSizes) {
  EXPECT_TRUE(matches_reference(caching, {33, 17, 65}, 11));    // the first call computes
  EXPECT_FALSE(matches_reference(caching, {33, 17, 65}, 23));   // the second hands the first back
}

TEST(SuiteRejectsWrongType, CpuLoopThatDropsTheLastTerm) {
  EXPECT_FALSE(matches_reference(wrong_cpu, {17, 19, 23}));
  EXPECT_FALSE(matches_reference(wrong_cpu, {1, 1, 2}));
}

// The tolerance is 8 k eps: an error of 7 k eps must pass and one of 9 k eps must not, so that
// loosening (or tightening) the checks cannot go unnoticed.
TEST(SuiteRejectsWrongType, AnErrorJustPastTheToleranceButNotOneJustInside) {
  for (const Shape& sh : {Shape{17, 19, 23}, Shape{3, 5, 400}}) {
    error_in_k_eps = 7;
    EXPECT_TRUE(matches_reference(probe, sh));
    error_in_k_eps = 9;
    EXPECT_FALSE(matches_reference(probe, sh));
  }
}
