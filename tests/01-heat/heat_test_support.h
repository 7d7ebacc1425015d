// Checks shared by the CPU and GPU heat suites. Each failure names the file to edit.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graded.h"
#include "heat.h"
#include "heat_reference.h"
#include "heat_run.h"
#include "stage_param.h"
#include "validate.h"

inline std::string describe(const HeatGrid& g) {
  return std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz);
}

inline std::string edit_hint(const HeatStage& s) {
  return "\n  -> edit " + std::string(s.source) + " (stage " + s.name + ")";
}

// So that gtest names a stage in its reports instead of printing an address.
inline void PrintTo(const HeatStage* s, std::ostream* out) { *out << s->name; }

// The stage's field after `steps` steps from a random field equals the reference's.
inline testing::AssertionResult matches_reference(const HeatStage& s, const HeatGrid& g, int steps, dim3 block,
                                                  uint64_t seed = 7) {
  const std::vector<float> initial = random_field(g, seed);
  std::vector<float> got = run_stage(s, g, block, initial, steps);
  tut::graded_output(got);  // a grading run judges it outside the student's process
  const std::vector<float> want = reference_heat(g, initial, steps);
  const tut::ValidationReport r =
      tut::compare(got.data(), want.data(), {size_t(g.nx), size_t(g.ny), size_t(g.nz)}, {kHeatAtol, kHeatRtol});
  if (r.ok()) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "stage " << s.name << " differs from the reference on a random "
                                     << describe(g) << " field after " << steps << " steps: " << r.summary()
                                     << edit_hint(s);
}

// One step from a random field, with the output's interior poisoned: no interior cell may be
// left NaN, and every boundary cell must be exactly what it was.
inline testing::AssertionResult writes_interior_only(const HeatStage& s, const HeatGrid& g, dim3 block) {
  const std::vector<float> initial = random_field(g, 11);
  std::vector<float> got = run_stage(s, g, block, initial, 1);
  tut::graded_output(got);
  size_t unwritten = 0, boundary_changed = 0;
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const size_t c = (size_t(k) * g.ny + j) * g.nx + i;
        const bool boundary = i == 0 || j == 0 || k == 0 || i == g.nx - 1 || j == g.ny - 1 || k == g.nz - 1;
        if (boundary && !(got[c] == initial[c])) ++boundary_changed;
        if (!boundary && std::isnan(got[c])) ++unwritten;
      }
  if (unwritten == 0 && boundary_changed == 0) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "stage " << s.name << " on " << describe(g) << ": " << unwritten
                                     << " interior cells never written, " << boundary_changed
                                     << " boundary cells changed (they must be left alone)" << edit_hint(s);
}

// Sizes that divide no block: every shape up to 3x3x3 (most have no interior at all), two
// odd ones, and rows of 68 cells (whole float4s, but half a warp of them); and sizes that every
// stage's block divides, in the whole grid (128x32x8) and in its interior (130x34x10), where a
// grid one block short or long shows; in a grading run, one more that the grader draws.
inline std::vector<HeatGrid> awkward_grids() {
  std::vector<HeatGrid> grids;
  for (int nz = 1; nz <= 3; ++nz)
    for (int ny = 1; ny <= 3; ++ny)
      for (int nx = 1; nx <= 3; ++nx) grids.push_back({nx, ny, nz});
  grids.push_back({37, 29, 23});
  grids.push_back({130, 67, 45});
  grids.push_back({68, 29, 23});
  grids.push_back({128, 32, 8});
  grids.push_back({130, 34, 10});
  if (tut::grading_run()) grids.push_back({tut::drawn_size(1, 140, 1), tut::drawn_size(1, 70, 2), tut::drawn_size(1, 40, 3)});
  return grids;
}

constexpr HeatGrid kDefaultGrid{128, 128, 128};

// The tests of one stage; the CPU and GPU suites instantiate it with their stages. Each test
// checks the stage and every variant it sweeps (v5's loads in flight, v7's alternatives).
class HeatStageTest : public testing::TestWithParam<const HeatStage*> {};

TEST_P(HeatStageTest, MatchesReferenceOnSizesThatDivideNoBlock) {
  for (const HeatStage* s : stage_and_variants(*GetParam()))
    for (const HeatGrid& g : awkward_grids()) {
      const testing::AssertionResult ok = matches_reference(*s, g, 5, s->code.block);
      EXPECT_TRUE(ok);
      if (!ok) break;  // one clear failure is enough to read
    }
}

TEST_P(HeatStageTest, MatchesReferenceAtTheDefaultSize) {
  for (const HeatStage* s : stage_and_variants(*GetParam()))
    EXPECT_TRUE(matches_reference(*s, kDefaultGrid, 3, s->code.block));
}

// Stages that fuse steps or replay them in batches must still run exactly the steps asked:
// counts that no fusion depth (2, 3, 4) or batch divides, and one batch plus a remainder.
TEST_P(HeatStageTest, MatchesReferenceAfterAnyNumberOfSteps) {
  for (const HeatStage* s : stage_and_variants(*GetParam()))
    for (const int steps : {1, 2, 5, 7, 11, 53}) {
      const testing::AssertionResult ok = matches_reference(*s, {37, 29, 23}, steps, s->code.block);
      EXPECT_TRUE(ok);
      if (!ok) break;
    }
}

// The same sizes twice, new numbers the second time: a stage that keeps the first call's result
// and hands it back (a cache keyed by the sizes) fails here.
TEST_P(HeatStageTest, RecomputesWhenOnlyTheInputsChange) {
  for (const HeatStage* s : stage_and_variants(*GetParam()))
    for (const int steps : {1, 4, 49}) {  // whole fused passes (v6) and graphs (v7) and a remainder
      EXPECT_TRUE(matches_reference(*s, {37, 29, 23}, steps, s->code.block, 11));
      EXPECT_TRUE(matches_reference(*s, {37, 29, 23}, steps, s->code.block, 23))
          << "(the second call: same sizes, new inputs)";
    }
}

TEST_P(HeatStageTest, WritesEveryInteriorCellAndNoBoundaryCell) {
  for (const HeatStage* s : stage_and_variants(*GetParam()))
    for (const HeatGrid& g : {HeatGrid{37, 29, 23}, HeatGrid{3, 3, 3}, HeatGrid{130, 67, 45}})
      EXPECT_TRUE(writes_interior_only(*s, g, s->code.block));
}
