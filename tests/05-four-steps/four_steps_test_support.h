// Checks shared by the four-steps suites: every stage against the tests' own time stepping
// (vortex_reference.h) from a perturbed vortex, and the conservation of the totals. Failures
// name the file to edit.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "four_steps.h"
#include "graded.h"
#include "stage_param.h"
#include "validate.h"
#include "vortex_reference.h"

inline void PrintTo(const FourStepsStage* s, std::ostream* out) { *out << s->name; }

inline std::string edit_hint(const FourStepsStage& s) {
  return "\n  -> edit " + std::string(s.source) + " (stage " + s.name + ")";
}

inline Problem test_problem(int nx, int ny, double viscosity) {
  Problem p;
  p.mesh = make_mesh(nx, ny);
  p.gas.mu_ref = viscosity;
  return p;
}

// The vortex with every value changed by up to 1% at random, so that no two cells (and no
// two mirror images) move alike and a face taken from the wrong side shows.
inline std::vector<double> perturbed_vortex(const Mesh& m, uint64_t seed = 5) { return yee_vortex(m, 0, 0.01, seed); }

// The stage's state and clock after `steps` steps equal the reference's to kStageTolerance.
// `mistake` compares with a reference that makes it instead (to show a wrong stage is wrong
// in just the way it means to be).
inline testing::AssertionResult matches_reference(const FourStepsStage& s, int nx, int ny, int steps,
                                                  double viscosity, Mistake mistake = Mistake::none,
                                                  uint64_t seed = 5) {
  const Problem p = test_problem(nx, ny, viscosity);
  std::vector<double> got = perturbed_vortex(p.mesh, seed);
  double want_t = 0;
  const std::vector<double> want = reference_vortex(p, got, steps, mistake, &want_t);
  double got_t = run_stage(s, p, got, steps);
  tut::graded_output(got);  // a grading run judges them outside the student's process
  tut::graded_output(got_t);
  const std::string where = " on " + std::to_string(nx) + "x" + std::to_string(ny) + " cells, viscosity " +
                            std::to_string(viscosity) + ", after " + std::to_string(steps) + " steps";
  const tut::ValidationReport r = tut::compare(got.data(), want.data(), p.mesh.extent(), kStageTolerance);
  if (!r.ok())
    return testing::AssertionFailure() << "stage " << s.name << " differs from the reference" << where << ": "
                                       << r.summary() << edit_hint(s);
  // The clock too: the time steps, each a reduction over the cells, must add up to the same t.
  if (!(std::fabs(got_t - want_t) <= kStageTolerance.atol + kStageTolerance.rtol * want_t))
    return testing::AssertionFailure() << "stage " << s.name << " reaches t = " << got_t << ", the reference "
                                       << want_t << where << edit_hint(s);
  return testing::AssertionSuccess();
}

// Mesh shapes: multiples of the 32 x 4 block and shapes it divides in neither direction, the
// smallest that the five-cell stencil allows, and nx != ny everywhere but two (an x and a y
// swapped, in an index or a dx, shows there).
struct Shape {
  int nx, ny;
};
inline std::vector<Shape> awkward_shapes() {
  std::vector<Shape> shapes = {{4, 4}, {5, 7}, {31, 33}, {32, 32}, {64, 16}, {37, 61}, {97, 128}};
  if (tut::grading_run()) shapes.push_back({tut::drawn_size(4, 100, 1), tut::drawn_size(4, 100, 2)});  // the grader's
  return shapes;
}

// A few steps on every shape with a little viscosity; then with none (the Euler equations) and
// with much more (viscous fluxes as large as the convective ones' differences), on one shape.
inline void expect_matches_reference_on_awkward_shapes(const FourStepsStage& s) {
  for (const Shape& shape : awkward_shapes()) {
    const testing::AssertionResult ok = matches_reference(s, shape.nx, shape.ny, 3, 1e-3);
    EXPECT_TRUE(ok);
    if (!ok) return;  // one clear failure is enough to read
  }
  for (double viscosity : {0.0, 1e-2}) EXPECT_TRUE(matches_reference(s, 37, 61, 3, viscosity));
}

// The same sizes twice, new numbers the second time: a stage that keeps the first call's result
// and hands it back (a cache keyed by the sizes) fails here.
inline void expect_recomputes_when_only_the_inputs_change(const FourStepsStage& s) {
  EXPECT_TRUE(matches_reference(s, 37, 61, 2, 1e-3, Mistake::none, 11));
  EXPECT_TRUE(matches_reference(s, 37, 61, 2, 1e-3, Mistake::none, 23)) << "(the second call: same sizes, new inputs)";
}

// Finite volumes on a periodic mesh: what leaves a cell enters its neighbour, so the totals of
// mass, momentum and energy stay as they were, to rounding.
inline testing::AssertionResult conserves_totals(const FourStepsStage& s) {
  const Problem p = test_problem(48, 40, 1e-3);
  std::vector<double> q = perturbed_vortex(p.mesh);
  const std::vector<double> before = conserved_totals(p.mesh, q.data());
  run_stage(s, p, q, 5);
  tut::graded_output(q);
  const std::vector<double> after = conserved_totals(p.mesh, q.data());
  const char* names[kVars] = {"mass", "x momentum", "y momentum", "energy"};
  for (int v = 0; v < kVars; ++v)
    if (!(std::fabs(after[v] - before[v]) <= 1e-12 * std::fabs(before[v])))
      return testing::AssertionFailure() << "stage " << s.name << " changes the total " << names[v] << " from "
                                         << before[v] << " to " << after[v] << " in 5 steps" << edit_hint(s);
  return testing::AssertionSuccess();
}

// The checks of every stage: each side's test program (test_cpu.cpp, test_gpu.cu, test_acc.cu,
// test_mpi.cpp) instantiates them with its side's stages.
class FourStepsStageTest : public testing::TestWithParam<const FourStepsStage*> {};

TEST_P(FourStepsStageTest, MatchesReferenceOnAwkwardSizes) { expect_matches_reference_on_awkward_shapes(*GetParam()); }

TEST_P(FourStepsStageTest, ConservesMassMomentumEnergy) { EXPECT_TRUE(conserves_totals(*GetParam())); }

TEST_P(FourStepsStageTest, RecomputesWhenOnlyTheInputsChange) {
  expect_recomputes_when_only_the_inputs_change(*GetParam());
}
