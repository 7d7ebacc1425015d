// Checks shared by the poisson suites: every stage against the tests' own Jacobi loop on
// random initial fields, and multi-GPU stages against gpu2, bit for bit. Failures name the
// file to edit.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "graded.h"
#include "poisson.h"
#include "stage_param.h"
#include "validate.h"

inline void PrintTo(const PoissonStage* s, std::ostream* out) { *out << s->name; }

// A stage the tests compare others with, or run on their own terms: gpu2, multi.
inline const PoissonStage& stage_called(const char* name) { return tut::stage_named(poisson_stages(), name); }

// The tests' own Jacobi loop, written separately from the stages.
inline std::vector<double> reference_jacobi(const PoissonProblem& p, int iterations) {
  const int N = p.grid.N, w = p.grid.width();
  const double h2 = p.grid.h() * p.grid.h();
  std::vector<double> u = p.u0, next = p.u0;
  for (int t = 0; t < iterations; ++t) {
    for (int r = 1; r <= N; ++r)
      for (int c = 1; c <= N; ++c)
        next[size_t(r) * w + c] = (u[size_t(r - 1) * w + c] + u[size_t(r + 1) * w + c] + u[size_t(r) * w + c - 1] +
                                   u[size_t(r) * w + c + 1] + h2 * p.f[size_t(r) * w + c]) / 4;
    u.swap(next);
  }
  return u;
}

inline std::vector<double> solve_with(const PoissonStage& s, const PoissonProblem& p, int iterations, int parts = 1) {
  std::vector<double> u = p.u0;
  SolveOptions o;
  o.max_iterations = iterations;
  o.parts = parts;
  SolveResult r = s.code.solve(p, u, o);
  tut::graded_output(u);  // a grading run judges them outside the student's process
  tut::graded_output(r.iterations);
  EXPECT_EQ(r.iterations, iterations) << s.name;
  return u;
}

inline testing::AssertionResult same_field(const PoissonStage& s, const std::vector<double>& got,
                                           const std::vector<double>& want, const PoissonGrid& g, double tolerance,
                                           const std::string& what) {
  const tut::ValidationReport r = tut::compare(got.data(), want.data(), g.extent(), {tolerance, tolerance});
  if (r.ok()) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "stage " << s.name << " differs from " << what << " at N = " << g.N
                                     << ": " << r.summary() << "\n  -> edit " << s.source
                                     << " (stage " << s.name << ")";
}

// Jacobi is deterministic: a stage matches the reference to rounding (1e-12 on values up to 20).
inline testing::AssertionResult matches_reference(const PoissonStage& s, int N, int iterations, int parts = 1,
                                                  uint64_t seed = 2018) {
  const PoissonProblem p = radiator_problem(N, seed);  // random interior, so that every point moves
  return same_field(s, solve_with(s, p, iterations, parts), reference_jacobi(p, iterations), p.grid, 1e-12,
                    "the reference after " + std::to_string(iterations) + " iterations");
}

// The same size twice, new numbers the second time: a stage that keeps the first call's result
// and hands it back (a cache keyed by the sizes) fails here. 101: a graph of 100 (gpu3) and one more.
inline void expect_recomputes_when_only_the_inputs_change(const PoissonStage& s) {
  EXPECT_TRUE(matches_reference(s, 37, 101, 1, 11));
  EXPECT_TRUE(matches_reference(s, 37, 101, 1, 23)) << "(the second call: same sizes, new inputs)";
}

// The iteration at which the tests' own loop stops under options o (the first check iteration
// whose change is under the tolerance), and that change.
inline SolveResult reference_stop(const PoissonProblem& p, const SolveOptions& o) {
  const int N = p.grid.N, w = p.grid.width();
  PoissonProblem at = p;  // its u0: the field after the iterations done so far
  SolveResult r;
  while (r.iterations < o.max_iterations) {
    const std::vector<double> before = at.u0;
    at.u0 = reference_jacobi(at, 1);
    if (++r.iterations % o.check_every != 0) continue;
    double sum = 0;
    for (int row = 1; row <= N; ++row)
      for (int c = 1; c <= N; ++c) sum += std::pow(at.u0[size_t(row) * w + c] - before[size_t(row) * w + c], 2);
    r.change_norm = std::sqrt(sum);
    if (r.change_norm < o.tolerance) break;
  }
  return r;
}

// The tolerance rule: the run stops at the first check iteration whose change is under the
// tolerance, and reports that change, ||u_k - u_(k-1)||_2 over the interior: a stop too early
// (none at all: 0 iterations), too late, or a norm without its square root is caught here.
inline void expect_stops_at_the_tolerance(const PoissonStage& s) {
  const PoissonProblem p = radiator_problem(16, 2019);  // random interior: the stop is not one a table could hold
  std::vector<double> u = p.u0;
  SolveOptions o;
  o.max_iterations = 100000;
  o.tolerance = 1e-3;
  o.check_every = 10;
  SolveResult r = s.code.solve(p, u, o);
  tut::graded_output(r.iterations);  // a grading run judges them outside the student's process
  tut::graded_output(r.change_norm);
  tut::graded_output(u);
  const SolveResult want = reference_stop(p, o);
  EXPECT_EQ(r.iterations, want.iterations) << s.name << ": the iteration it stopped at";
  EXPECT_NEAR(r.change_norm, want.change_norm, 1e-9 * want.change_norm) << s.name << ": the change norm it reports";
  EXPECT_TRUE(same_field(s, u, reference_jacobi(p, want.iterations), p.grid, 1e-12,
                         "the reference where it stops"));
}

// The largest error against u = sin(pi x) sin(pi y) once stage s has converged on the
// manufactured problem of size N (tolerance 1e-13 on the change, checked every 500 iterations);
// -1 if it did not converge within max_iterations.
inline double manufactured_error(const PoissonStage& s, int N, int max_iterations) {
  const PoissonProblem p = manufactured_problem(N);
  std::vector<double> u = p.u0;
  SolveOptions o;
  o.max_iterations = max_iterations;
  o.tolerance = 1e-13;
  o.check_every = 500;
  const SolveResult r = s.code.solve(p, u, o);
  if (r.iterations >= o.max_iterations) return -1;
  double worst = 0;
  const int w = p.grid.width();
  for (int row = 1; row <= N; ++row)
    for (int c = 1; c <= N; ++c)
      worst = std::max(worst, std::fabs(u[size_t(row) * w + c] -
                                        manufactured_solution(-1 + c * p.grid.h(), -1 + row * p.grid.h())));
  return worst;
}

// Sizes that divide no block (1, 2, 3 and two odd ones), and multiples of 8, 16 and 32, where a
// grid one block short, or long, shows; in a grading run, one more that the grader draws.
inline std::vector<int> awkward_sizes() {
  std::vector<int> sizes = {1, 2, 3, 8, 16, 32, 37, 64, 96, 129};
  if (tut::grading_run()) sizes.push_back(tut::drawn_size(1, 160, 1));
  return sizes;
}

// The checks of every single-device stage: test_cpu.cpp and test_gpu.cu instantiate them with
// their side's stages.
class PoissonStageTest : public testing::TestWithParam<const PoissonStage*> {};

TEST_P(PoissonStageTest, MatchesReferenceOnAwkwardSizes) {
  const bool one_thread = std::string(GetParam()->name) == "gpu1";  // minutes at 250 iterations
  for (int N : awkward_sizes())
    for (int iterations : {1, 50, 51, 250}) {  // 250: two graph replays and 50 single launches in gpu3
      if (one_thread && iterations > 51) continue;
      const testing::AssertionResult ok = matches_reference(*GetParam(), N, iterations);
      EXPECT_TRUE(ok);
      if (!ok) return;
    }
}

TEST_P(PoissonStageTest, StopsAtTheTolerance) { expect_stops_at_the_tolerance(*GetParam()); }

TEST_P(PoissonStageTest, RecomputesWhenOnlyTheInputsChange) { expect_recomputes_when_only_the_inputs_change(*GetParam()); }
