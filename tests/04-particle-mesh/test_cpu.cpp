// The CPU stages of chapter 04-particle-mesh, and a deliberately wrong stage per kernel.
#include <algorithm>
#include <cmath>

#include "pm_test_support.h"

class Part2DataCpuTest : public testing::TestWithParam<const Part2DataStage*> {};
INSTANTIATE_TEST_SUITE_P(part2data, Part2DataCpuTest,
                         testing::ValuesIn(tut::stages_on(part2data_stages(), tut::Side::cpu)),
                         stage_param_name<Part2DataStage>);

TEST_P(Part2DataCpuTest, BinsRandomParticlesExactly) {
  for (const Mesh& m : part2data_meshes())
    for (int np : particle_counts()) {
      const testing::AssertionResult ok = bins_exactly(*GetParam(), m, np);
      EXPECT_TRUE(ok);
      if (!ok) return;
    }
}

TEST_P(Part2DataCpuTest, RecomputesWhenOnlyTheInputsChange) {
  expect_part2data_recomputes_when_only_the_inputs_change(*GetParam());
}

class ForceCpuTest : public testing::TestWithParam<const ForceStage*> {};
INSTANTIATE_TEST_SUITE_P(force, ForceCpuTest, testing::ValuesIn(tut::stages_on(force_stages(), tut::Side::cpu)),
                         stage_param_name<ForceStage>);

TEST_P(ForceCpuTest, DifferentiatesAlongEveryAxis) {
  for (int N : force_sizes())
    for (int axis : {kAxisX, kAxisY, kAxisZ}) {
      const testing::AssertionResult ok = differentiates(*GetParam(), N, axis);
      EXPECT_TRUE(ok);
      if (!ok) return;
    }
}

TEST_P(ForceCpuTest, RecomputesWhenOnlyTheInputsChange) {
  expect_force_recomputes_when_only_the_inputs_change(*GetParam());
}

namespace {

// Wrong on purpose: swaps iy and iz in the cell index.
void swapped_axes(const Mesh& m, int np, const float* pos, int* data) {
  for (int p = 0; p < np; ++p) data[p] = cell_index(m, pos[3 * p], pos[3 * p + 2], pos[3 * p + 1]);
}
const Part2DataStage wrong_part2data = {{"wrong-swapped-axes", "", tut::Side::cpu, "tests/04-particle-mesh/test_cpu.cpp"},
                                        Part2DataCode{swapped_axes}};

// Wrong on purpose: at the ends of the axis, takes the cell itself instead of wrapping around
// (a one-sided difference); right everywhere else.
void clamped_ends(const Mesh& m, int axis, const float* pot, float* f) {
  const int N = m.N, stride = axis == kAxisX ? N * N : axis == kAxisY ? N : 1;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < N; ++k) {
        const int c = axis == kAxisX ? i : axis == kAxisY ? j : k, cell = (i * N + j) * N + k;
        const int up = c + 1 < N ? stride : 0, down = c > 0 ? stride : 0;
        f[cell] = (pot[cell + up] - pot[cell - down]) / (2.0f * m.dx);
      }
}
const ForceStage wrong_force = {{"wrong-clamped-ends", "", tut::Side::cpu, "tests/04-particle-mesh/test_cpu.cpp"},
                                ForceCode{clamped_ends, kEveryAxis}};

// The reference's force, rounded to float, with the cell of the smallest force (where a float
// resolves the bound finely) off by error_in_bounds times the tolerance the suite states,
// 1e-6 + 1e-6 |reference| (written out here, so that loosening it fails this test).
double error_in_bounds = 0;
void off_by_a_known_error(const Mesh& m, int axis, const float* pot, float* f) {
  const std::vector<double> want = reference_force(m, axis, std::vector<float>(pot, pot + m.cells()));
  size_t smallest = 0;
  for (size_t c = 0; c < want.size(); ++c) {
    f[c] = float(want[c]);
    if (std::fabs(want[c]) < std::fabs(want[smallest])) smallest = c;
  }
  f[smallest] = float(want[smallest] + error_in_bounds * (1e-6 + 1e-6 * std::fabs(want[smallest])));
}
const ForceStage probe = {{"tolerance-probe", "", tut::Side::cpu, "tests/04-particle-mesh/test_cpu.cpp"},
                          ForceCode{off_by_a_known_error, kEveryAxis}};

// Wrong on purpose, one per kernel: computes once per size and hands the stored result back afterwards.
void part2data_caches_by_size(const Mesh& m, int np, const float* pos, int* data) {
  static int cached_N = -1, cached_np = -1;
  static std::vector<int> cached;
  if (m.N != cached_N || np != cached_np)
    cached = reference_cells(m, std::vector<float>(pos, pos + 3 * size_t(np))), cached_N = m.N, cached_np = np;
  std::copy(cached.begin(), cached.end(), data);
}
void force_caches_by_size(const Mesh& m, int axis, const float* pot, float* f) {
  static int cached_N = -1;
  static std::vector<double> cached;
  if (m.N != cached_N) cached = reference_force(m, axis, std::vector<float>(pot, pot + m.cells())), cached_N = m.N;
  std::copy(cached.begin(), cached.end(), f);
}
const Part2DataStage caching_part2data = {
    {"caching", "results kept between calls", tut::Side::cpu, "tests/04-particle-mesh/test_cpu.cpp"},
    Part2DataCode{part2data_caches_by_size}};
const ForceStage caching_force = {{"caching", "results kept between calls", tut::Side::cpu,
                                   "tests/04-particle-mesh/test_cpu.cpp"},
                                  ForceCode{force_caches_by_size, kEveryAxis}};

}  // namespace

TEST(SuiteRejectsWrongStage, ResultsKeptBetweenCallsOfTheSameSizes) {
  EXPECT_TRUE(bins_exactly(caching_part2data, {37, 0.1f}, 1003, 0, 11));   // the first call computes
  EXPECT_FALSE(bins_exactly(caching_part2data, {37, 0.1f}, 1003, 0, 23));  // the second hands the first back
  EXPECT_TRUE(differentiates(caching_force, 4, kAxisY, 0, 11));
  EXPECT_FALSE(differentiates(caching_force, 4, kAxisY, 0, 23));
}

TEST(SuiteRejectsWrongStage, Part2DataWithSwappedAxes) { EXPECT_FALSE(bins_exactly(wrong_part2data, {37, 0.1f}, 31)); }

TEST(SuiteRejectsWrongStage, ForceThatDoesNotWrapAround) {
  for (int axis : {kAxisX, kAxisY, kAxisZ}) EXPECT_FALSE(differentiates(wrong_force, 16, axis));
}

TEST(SuiteRejectsWrongStage, ForceErrorJustPastTheToleranceButNotOneJustInside) {
  error_in_bounds = 0.9;
  EXPECT_TRUE(differentiates(probe, 16, kAxisY));
  error_in_bounds = 1.1;
  EXPECT_FALSE(differentiates(probe, 16, kAxisY));
}
