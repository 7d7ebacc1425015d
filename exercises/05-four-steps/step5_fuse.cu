// Exercise skeleton generated from solutions/05-four-steps/step5_fuse.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// Step 5, fuse the passes: gpu5.
//   run:  build-ex/chapters/05-four-steps/vortex --stage gpu4,gpu5 [--variants]
//   test: meson test -C build-ex four-steps-gpu5 four-steps-gpu5-idea --print-errorlogs
// After step 4 every pass reads and writes each value once, and the passes trade their results
// through DRAM: about 1000 bytes per cell update where the least is 256 (the state read and
// written once per Runge-Kutta stage, four_steps.h). Step 5 is one kernel per Runge-Kutta
// stage, in which nothing but the state and the new state goes through memory: each warp
// marches down a strip of 28 cells' width and H rows, one row at a time. A lane holds its
// column's cells of the rows it needs (the y faces reach two rows each way), the primitive
// variables and viscosity of three rows, and the flux through its cell's south face, in
// registers; the cells and primitives of the columns beside its own come from the lanes beside
// it (shuffles), the two lanes at each edge of the warp holding the strip's halo. Each face's
// flux is computed once (a row's x faces, then the y face below the next row, which is also
// the current row's north face), each cell's primitives once per strip, and the last stage's
// kernel also folds the stable rate of each new cell into the clock, so that a time step needs
// no reduction pass over the state. (A first design, a block per 32 x 8 tile with the state,
// primitives and fluxes in shared memory, was held back by shared memory's traffic and block
// barriers, results/h200_gpu5_shared_tiles_ncu.csv; the lesson compares them.)
// What still limits it: the four halo lanes of 32 compute faces and primitives that the strips
// beside them compute too, and each strip loads two rows above and below it again.
#include <iterator>

#include "check.h"
#include "step_support.h"
#include "stress.h"

namespace {

// A lane per column: lanes kReach .. kReach + kStripWidth - 1 update the strip's cells; the
// kReach lanes on each side hold the columns the reconstruction reaches into. (The stress
// suite's build with one lane of halo on each side must fail.)
constexpr int kReach = 2 - int(tut::stress::removed("second_halo_ring"));
constexpr int kStripWidth = 32 - 2 * kReach;
constexpr int kWarps = 4;  // strips per block

// i on a periodic line of n cells, for any i >= -n (a small mesh is narrower than a strip).
__device__ __forceinline__ int periodic(int i, int n) { return (i + n) % n; }

// What a lane keeps of a cell for the viscous fluxes: u, v, T, and the viscosity.
struct Near {
  double u, v, T, mu;
};
__device__ __forceinline__ Near near_of(const Gas& g, const Cons& c) {
  const Prim w = primitive<true>(g, c);
  return {w.u, w.v, w.T, viscosity<true>(g, w.T)};
}
__device__ __forceinline__ Prim as_prim(const Near& n) { return {0, n.u, n.v, 0, n.T}; }

// The value of `x` in the lane `delta` to the left (negative) or right (positive).
__device__ __forceinline__ double from_lane(double x, int delta) {
  return delta < 0 ? __shfl_up_sync(~0u, x, -delta) : __shfl_down_sync(~0u, x, delta);
}
__device__ __forceinline__ Cons from_lane(const Cons& c, int delta) {
  return {from_lane(c.rho, delta), from_lane(c.mx, delta), from_lane(c.my, delta), from_lane(c.e, delta)};
}
__device__ __forceinline__ Near from_lane(const Near& n, int delta) {
  return {from_lane(n.u, delta), from_lane(n.v, delta), from_lane(n.T, delta), from_lane(n.mu, delta)};
}

// The flux through the south face of this lane's cell in row j + 1 (step 3's fluxes_y), from
// the column's cells of rows j - 1 .. j + 2 and the primitives of rows j and j + 1 (row j's
// also in the lanes beside).
__device__ __forceinline__ Cons south_flux(const Mesh& m, const Gas& g, const Cons& a, const Cons& b, const Cons& c,
                                           const Cons& d, const Near& below, const Near& here) {
  const Near below_w = from_lane(below, -1), below_e = from_lane(below, 1);
  const Near here_w = from_lane(here, -1), here_e = from_lane(here, 1);
  const Cons convective = rusanov_flux<true, true>(g, left_of_face(a, b, c), right_of_face(b, c, d));
  const Cons viscous = viscous_flux<true, true>(m, g, as_prim(below), as_prim(here), as_prim(below_w), as_prim(below_e),
                                                as_prim(here_w), as_prim(here_e), below.mu, here.mu);
  return minus(convective, viscous);
}

// The flux through the west face of this lane's cell in row j (step 3's fluxes_x): the row's
// cells of the two lanes to the left and one to the right, the primitives of rows j - 1 .. j + 1.
__device__ __forceinline__ Cons west_flux(const Mesh& m, const Gas& g, const Cons& cell, const Near& south,
                                          const Near& here, const Near& north) {
  const Cons a = from_lane(cell, -2), b = from_lane(cell, -1), d = from_lane(cell, 1);
  const Near west = from_lane(here, -1), south_w = from_lane(south, -1), north_w = from_lane(north, -1);
  const Cons convective = rusanov_flux<true, false>(g, left_of_face(a, b, cell), right_of_face(b, cell, d));
  const Cons viscous = viscous_flux<true, false>(m, g, as_prim(west), as_prim(here), as_prim(south_w), as_prim(north_w),
                                                 as_prim(south), as_prim(north), west.mu, here.mu);
  return minus(convective, viscous);
}

// The largest `rate` of the warp into the clock's rate_bits (non-negative doubles order like
// their bits): the next time step's, without a pass over the state.
__device__ void fold_rate_into(Clock* clock, double rate) {
  for (int gap = 16; gap > 0; gap /= 2) rate = fmax(rate, __shfl_xor_sync(~0u, rate, gap));
  if (threadIdx.x == 0) atomicMax(&clock->rate_bits, static_cast<unsigned long long>(__double_as_longlong(rate)));
}

// One Runge-Kutta stage (in -> out; u the step's start state) on strips of H rows, a warp each,
// at least BLOCKS blocks on an SM (fewer registers a thread, the more: the sweep's other knob).
// LAST: the step's last stage, which folds the new cells' stable rates into the clock.
template <int H, int BLOCKS, bool LAST>
__global__ void __launch_bounds__(32 * kWarps, BLOCKS) march_strips(Mesh m, Gas g, RungeKuttaStage rk, Clock* clock,
                                                            const double* u, const double* __restrict__ in, double* out) {
  const int strips_across = (m.nx + kStripWidth - 1) / kStripWidth;
  const int strip = blockIdx.x * kWarps + threadIdx.y, lane = threadIdx.x;
  const int j0 = strip / strips_across * H, i = strip % strips_across * kStripWidth - kReach + lane;
  if (j0 >= m.ny) return;  // the whole warp: strips past the last
  const int column = periodic(i, m.nx), j_end = min(j0 + H, m.ny);
  const bool owns = lane >= kReach && lane < kReach + kStripWidth && i < m.nx;
  const size_t plane = m.plane();
  auto load = [&](const double* q, int j) {  // this lane's column, row j (wrapped)
    const size_t k = at(m, column, periodic(j, m.ny));
    return Cons{q[k], q[plane + k], q[2 * plane + k], q[3 * plane + k]};
  };
  const double dt = clock->dt;
  // TODO(exercise): march down the strip: rows j - 1 .. j + 2 of the column and the primitives of
  //   rows j - 1 .. j + 1 in registers, the south face's flux carried from the row before
}

// A time step: the first of a run reduces the state for its step; each later one takes the rate
// the previous step's last stage folded in.
template <int H, int BLOCKS>
void run_strips(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  const Mesh& m = p.mesh;
  const long long strips = blocks_for(m.nx, kStripWidth) * blocks_for(m.ny, H);
  const dim3 grid(unsigned(blocks_for(strips, kWarps))), block(32, kWarps);
  for (int n = 0; n < steps; ++n) {
    if (n == 0) {
      CUDA_CHECK(cudaMemsetAsync(&clock->rate_bits, 0, sizeof(clock->rate_bits)));
      device_time_step(p, q, clock);
    } else {
      device_step_from_rate(p, clock);
    }
    for (int s = 0; s < 3; ++s) {
      const StageBuffers b = stage_buffers(m, q, work, s);
      if (s < 2) march_strips<H, BLOCKS, false><<<grid, block>>>(m, p.gas, kRungeKutta[s], clock, q, b.in, b.out);
      else march_strips<H, BLOCKS, true><<<grid, block>>>(m, p.gas, kRungeKutta[s], clock, q, b.in, b.out);
    }
  }
  CUDA_CHECK_LAUNCH();
}

// The strip heights and register budgets `vortex --variants` times and the tests check (3 blocks
// an SM: as many registers as the kernel asks for; 4: at most 128 a thread); gpu5 runs the first.
constexpr FourStepsVariant kStrips[] = {
    {"gpu5_h16_b3", run_strips<16, 3>}, {"gpu5_h8_b3", run_strips<8, 3>},   {"gpu5_h32_b3", run_strips<32, 3>},
    {"gpu5_h64_b3", run_strips<64, 3>}, {"gpu5_h16_b4", run_strips<16, 4>}, {"gpu5_h32_b4", run_strips<32, 4>},
    {"gpu5_h16_b5", run_strips<16, 5>}};

}  // namespace

const FourStepsCode four_steps_gpu5{run_strips<16, 3>, kRungeKuttaPlanes, 1, kStrips, int(std::size(kStrips))};
