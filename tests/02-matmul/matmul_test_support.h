// Checks shared by the CPU and GPU matmul suites: every type against a long-double reference
// on random matrices, with a tolerance that grows with k. Each failure names the file to edit.
#pragma once
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "check.h"
#include "graded.h"
#include "matmul.h"
#include "random_inputs.h"
#include "stage_param.h"
#include "validate.h"

struct Shape {
  int m, n, k;
};

inline std::string describe(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

// So that gtest names a type in its reports instead of printing an address.
inline void PrintTo(const MatmulStage* s, std::ostream* out) { *out << s->name; }

inline testing::AssertionResult matches_reference(const MatmulStage& s, const Shape& sh, uint64_t seed = 5) {
  std::vector<double> A(size_t(sh.m) * sh.k), B(size_t(sh.k) * sh.n);
  tut::fill_random(A.data(), A.size(), seed, -1.0, 1.0);
  tut::fill_random(B.data(), B.size(), seed + 1, -1.0, 1.0);
  // C = A B through the type's course function (host pointers), or, for a variant with no
  // course function, through its launcher inside the same allocate/copy/launch wrapper; on
  // copies of A and B, which a type may not change.
  std::vector<double> C(size_t(sh.m) * sh.n), a = A, b = B;
  tut::poison(C.data(), C.size());  // an element never written stays NaN
  try {
    if (s.code.host)
      s.code.host(sh.m, sh.n, sh.k, a.data(), b.data(), C.data());
    else
      matmult_on_device(sh.m, sh.n, sh.k, a.data(), b.data(), C.data(), s.code.device);
  } catch (const tut::NoDeviceError&) {
    throw;  // this GPU cannot run the type: the test skips with the reason
  } catch (const std::exception& e) {  // the type's own error (gpu8's skeleton has no plan to offer)
    return testing::AssertionFailure() << "matmult_" << s.name << " stopped at m x n x k = " << describe(sh) << ": "
                                       << e.what() << "\n  -> edit " << s.source << " (type " << s.name << ")";
  }
  tut::graded_output(C);  // a grading run judges it outside the student's process
  std::vector<double> want(C.size());
  for (int i = 0; i < sh.m; ++i)
    for (int j = 0; j < sh.n; ++j) {
      long double sum = 0;
      for (int l = 0; l < sh.k; ++l) sum += (long double)A[size_t(i) * sh.k + l] * B[size_t(l) * sh.n + j];
      want[size_t(i) * sh.n + j] = double(sum);
    }
  // |a b| < 1, so any order of summation is within a few k * eps of the exact sum.
  const tut::Tolerance tolerance{8.0 * sh.k * DBL_EPSILON, 0.0};
  const tut::ValidationReport r =
      tut::compare(C.data(), want.data(), {size_t(sh.n), size_t(sh.m), 1, {"column", "row", ""}}, tolerance);
  if (r.ok()) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "matmult_" << s.name << " differs from the reference at m x n x k = "
                                     << describe(sh) << ": "
                                     << r.summary() << "\n  -> edit " << s.source << " (type " << s.name << ")";
}

// Awkward shapes: 1x1x1, single rows and columns, primes, nothing a multiple of 16 or 32; in a
// grading run, one more that the grader draws.
inline std::vector<Shape> awkward_shapes() {
  std::vector<Shape> shapes = {{1, 1, 1},    {1, 7, 1},      {7, 1, 1},       {1, 1, 9},       {3, 5, 7},
                               {17, 19, 23}, {31, 33, 65},   {64, 64, 64},    {100, 37, 129},  {257, 129, 67},
                               {1000, 1, 1000}, {1, 1000, 1000}, {2, 1000, 3}};
  if (tut::grading_run())
    shapes.push_back({tut::drawn_size(1, 300, 1), tut::drawn_size(1, 300, 2), tut::drawn_size(1, 300, 3)});
  return shapes;
}

class MatmulTypeTest : public testing::TestWithParam<const MatmulStage*> {};

// The type itself, then each variant it sweeps (gpu4's ROWS), as a type of its own.
inline std::vector<MatmulStage> type_and_variants(const MatmulStage& s) {
  std::vector<MatmulStage> all = {s};
  for (int v = 0; v < s.code.variant_count; ++v)
    all.push_back({{s.code.variants[v].name, s.idea, s.side, s.source}, MatmulCode{nullptr, s.code.variants[v].launch}});
  return all;
}

// A type that this GPU or build cannot run (gpu7 without FP64 tensor cores) says why by throwing
// NoDeviceError: the test is then skipped with that reason.
TEST_P(MatmulTypeTest, MatchesReferenceOnAwkwardShapes) {
  try {
    for (const MatmulStage& s : type_and_variants(*GetParam()))
      for (const Shape& sh : awkward_shapes()) {
        const testing::AssertionResult ok = matches_reference(s, sh);
        EXPECT_TRUE(ok);
        if (!ok) return;  // one clear failure is enough to read
      }
  } catch (const tut::NoDeviceError& e) {
    GTEST_SKIP() << e.what();
  }
}

// The same sizes twice, new numbers the second time: a type that keeps the first call's result
// and hands it back (a cache keyed by the sizes) fails here. The grader reports a failure of
// this case as results cached between calls. (1000 x 1 x 1000: rows of A in more pieces than
// gpu9 has pinned slots, whose second call does no planning that could make the host wait.)
TEST_P(MatmulTypeTest, RecomputesWhenOnlyTheInputsChange) {
  try {
    for (const Shape& sh : {Shape{33, 17, 65}, Shape{3, 5, 7}, Shape{1000, 1, 1000}}) {
      EXPECT_TRUE(matches_reference(*GetParam(), sh, 11));
      EXPECT_TRUE(matches_reference(*GetParam(), sh, 23)) << "(the second call: same sizes, new inputs)";
    }
  } catch (const tut::NoDeviceError& e) {
    GTEST_SKIP() << e.what();
  }
}

// A larger shape, for every type but gpu1 (one GPU thread for all of C: the small shapes
// suffice); each side instantiates it with its types.
class MatmulLargerShapeTest : public MatmulTypeTest {};

TEST_P(MatmulLargerShapeTest, MatchesReferenceAt384) {
  try {
    for (const MatmulStage& s : type_and_variants(*GetParam())) EXPECT_TRUE(matches_reference(s, {384, 384, 384}));
  } catch (const tut::NoDeviceError& e) {
    GTEST_SKIP() << e.what();
  }
}
