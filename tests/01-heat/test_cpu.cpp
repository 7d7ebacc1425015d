// The CPU stages of chapter 01-heat against the tests' own reference, and a deliberately
// wrong CPU stage that the checks must reject.
#include <algorithm>
#include <cmath>

#include "heat_test_support.h"

INSTANTIATE_TEST_SUITE_P(heat, HeatStageTest, testing::ValuesIn(tut::stages_on(heat_stages(), tut::Side::cpu)),
                         stage_param_name<HeatStage>);

namespace {

// Wrong on purpose: skips the last interior cell of every row (the classic `i < nx - 2`).
void step_skipping_row_end(const HeatGrid& g, float coeff, const float* in, float* out) {
  const size_t row = size_t(g.nx), plane = size_t(g.nx) * g.ny;
  for (int k = 1; k < g.nz - 1; ++k)
    for (int j = 1; j < g.ny - 1; ++j)
      for (int i = 1; i < g.nx - 2; ++i) {
        const size_t c = (k * size_t(g.ny) + j) * g.nx + i;
        out[c] = in[c] + coeff * ((in[c - 1] + in[c + 1]) + (in[c - row] + in[c + row]) +
                                  (in[c - plane] + in[c + plane]) - 6.0f * in[c]);
      }
}

const HeatStage wrong_cpu = {{"wrong-cpu", "skips the end of each row", tut::Side::cpu, "tests/01-heat/test_cpu.cpp"},
                             HeatCode{steps_of<step_skipping_row_end>}};

}  // namespace

namespace {

// The reference's step with one cell off by error_in_bounds times the tolerance the suite
// states, 1e-6 + 1e-5 |reference| (written out here, so that loosening it fails this test).
double error_in_bounds = 0;
void off_by_a_known_error(const HeatGrid& g, float, const float* in, float* out) {
  const std::vector<float> want = reference_heat(g, std::vector<float>(in, in + g.cells()), 1);
  std::copy(want.begin(), want.end(), out);
  const size_t centre = (size_t(g.nz / 2) * g.ny + g.ny / 2) * g.nx + g.nx / 2;
  out[centre] += float(error_in_bounds * (1e-6 + 1e-5 * std::fabs(want[centre])));
}
const HeatStage probe = {{"tolerance-probe", "", tut::Side::cpu, "tests/01-heat/test_cpu.cpp"},
                         HeatCode{steps_of<off_by_a_known_error>}};

// Wrong on purpose: steps once per grid size and hands the stored field back afterwards.
void caches_by_size(const HeatGrid& g, float, const float* in, float* out) {
  static HeatGrid cached_grid{-1, -1, -1};
  static std::vector<float> cached;
  if (g.nx != cached_grid.nx || g.ny != cached_grid.ny || g.nz != cached_grid.nz)
    cached = reference_heat(g, std::vector<float>(in, in + g.cells()), 1), cached_grid = g;
  std::copy(cached.begin(), cached.end(), out);
}
const HeatStage caching = {{"caching", "results kept between calls", tut::Side::cpu, "tests/01-heat/test_cpu.cpp"},
                           HeatCode{steps_of<caches_by_size>}};

}  // namespace

TEST(SuiteRejectsWrongStage, ResultsKeptBetweenCallsOfTheSameSizes) {
  EXPECT_TRUE(matches_reference(caching, {37, 29, 23}, 1, {}, 11));   // the first call computes
  EXPECT_FALSE(matches_reference(caching, {37, 29, 23}, 1, {}, 23));  // the second hands the first back
}

TEST(SuiteRejectsWrongStage, AnErrorJustPastTheToleranceButNotOneJustInside) {
  error_in_bounds = 0.9;
  EXPECT_TRUE(matches_reference(probe, {37, 29, 23}, 1, {}));
  error_in_bounds = 1.1;
  EXPECT_FALSE(matches_reference(probe, {37, 29, 23}, 1, {}));
}

TEST(SuiteRejectsWrongStage, CpuStageThatSkipsTheEndOfEachRow) {
  EXPECT_FALSE(matches_reference(wrong_cpu, {37, 29, 23}, 5, {}));
  EXPECT_FALSE(writes_interior_only(wrong_cpu, {37, 29, 23}, {}));
}
