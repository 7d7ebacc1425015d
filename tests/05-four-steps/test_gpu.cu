// The GPU stages of chapter 05-four-steps against the tests' own reference, and a merged
// kernel with a stale read that the checks must reject.
#include "check.h"
#include "four_steps_test_support.h"
#include "step_support.h"

INSTANTIATE_TEST_SUITE_P(four_steps, FourStepsStageTest,
                         testing::ValuesIn(tut::stages_on(four_steps_stages(), tut::Side::gpu)),
                         stage_param_name<FourStepsStage>);

namespace {

// Wrong on purpose: two kernels per Runge-Kutta stage, the first storing each cell's west and
// south face fluxes, the second summing a cell's four faces into the update. The flux arrays are
// double-buffered (stage k writes set k % 2), and the second kernel takes its east and north
// neighbours' faces from the other set: the previous stage's fluxes. Nothing races and nothing
// is NaN, so only the numbers can tell.
constexpr int kStaleWorkPlanes = kRungeKuttaPlanes + 2 * 2 * kVars;  // 2 sets of (x faces, y faces)

__global__ void face_fluxes(Mesh m, Gas g, const double* in, double* flux_x, double* flux_y) {
  int i, j;
  if (!thread_cell(m, i, j)) return;
  auto cell = [&](int di, int dj) { return load_cell(m, in, at(m, wrap(i, di, m.nx), wrap(j, dj, m.ny))); };
  auto prim = [&](int di, int dj) { return primitive<false>(g, cell(di, dj)); };
  const Prim here = prim(0, 0), west = prim(-1, 0), south = prim(0, -1);
  const double mu = viscosity<false>(g, here.T);
  const Cons fx = minus(rusanov_flux<false, false>(g, left_of_face(cell(-2, 0), cell(-1, 0), cell(0, 0)),
                                                   right_of_face(cell(-1, 0), cell(0, 0), cell(1, 0))),
                        viscous_flux<false, false>(m, g, west, here, prim(-1, -1), prim(-1, 1), prim(0, -1), prim(0, 1),
                                                   viscosity<false>(g, west.T), mu));
  const Cons fy = minus(rusanov_flux<false, true>(g, left_of_face(cell(0, -2), cell(0, -1), cell(0, 0)),
                                                  right_of_face(cell(0, -1), cell(0, 0), cell(0, 1))),
                        viscous_flux<false, true>(m, g, south, here, prim(-1, -1), prim(1, -1), prim(-1, 0), prim(1, 0),
                                                  viscosity<false>(g, south.T), mu));
  store_cell(m, flux_x, at(m, i, j), fx);
  store_cell(m, flux_y, at(m, i, j), fy);
}

__global__ void integral_and_update(Mesh m, RungeKuttaStage rk, const Clock* clock, const double* u, const double* in,
                                    const double* flux_x, const double* flux_y, const double* east_x,
                                    const double* north_y, double* out) {
  int i, j;
  if (!thread_cell(m, i, j)) return;
  const size_t cell = at(m, i, j), east = at(m, wrap(i, 1, m.nx), j), north = at(m, i, wrap(j, 1, m.ny));
  for (int v = 0; v < kVars; ++v) {
    const size_t p = v * m.plane();
    const double residual = (flux_x[p + cell] - east_x[p + east]) / m.dx + (flux_y[p + cell] - north_y[p + north]) / m.dy;
    out[p + cell] = runge_kutta(rk, u[p + cell], in[p + cell], clock->dt, residual);
  }
}

void run_stale(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  const Mesh& m = p.mesh;
  const size_t set = kVars * m.plane();
  double* flux = work + kRungeKuttaPlanes * m.plane();  // set k: x faces at 2k, y faces at 2k + 1
  const dim3 grid = cell_grid(m);
  for (int k = 0; k < 3 * steps; ++k) {
    const int s = k % 3, now = k % 2, stale = k == 0 ? now : 1 - now;  // the run's first stage: its own
    if (s == 0) device_time_step(p, q, clock);
    const StageBuffers b = stage_buffers(m, q, work, s);
    face_fluxes<<<grid, kCellBlock>>>(m, p.gas, b.in, flux + 2 * now * set, flux + (2 * now + 1) * set);
    integral_and_update<<<grid, kCellBlock>>>(m, kRungeKutta[s], clock, q, b.in, flux + 2 * now * set,
                                              flux + (2 * now + 1) * set, flux + 2 * stale * set,
                                              flux + (2 * stale + 1) * set, b.out);
  }
  CUDA_CHECK_LAUNCH();
}

const FourStepsStage stale_gpu = {{"wrong-stale-flux", "", tut::Side::gpu, "tests/05-four-steps/test_gpu.cu"},
                                  {run_stale, kStaleWorkPlanes}};

}  // namespace

// Rejected after one time step (three Runge-Kutta stages); and it is wrong in just this way:
// it matches a reference that takes the same stale faces, so everything else in it is right.
TEST(SuiteRejectsWrongStage, GpuMergedKernelReadsStaleNeighbourFlux) {
  EXPECT_FALSE(matches_reference(stale_gpu, 37, 61, 1, 1e-3));
  EXPECT_TRUE(matches_reference(stale_gpu, 37, 61, 3, 1e-3, Mistake::stale_east_flux));
}

// Every variant a GPU stage sweeps (gpu5's strip heights and register budgets, which `vortex
// --variants` times), under the checks of a stage: a strip that does not divide the mesh fails here.
TEST(FourStepsVariants, MatchReferenceAndConserve) {
  int checked = 0;
  for (const FourStepsStage* s : tut::stages_on(four_steps_stages(), tut::Side::gpu))
    for (int k = 0; k < s->code.variant_count; ++k) {
      const FourStepsStage variant = s->variant(k);
      SCOPED_TRACE(variant.name);
      expect_matches_reference_on_awkward_shapes(variant);
      EXPECT_TRUE(conserves_totals(variant));
      ++checked;
    }
  EXPECT_GT(checked, 0) << "no GPU stage sweeps a variant";
}
