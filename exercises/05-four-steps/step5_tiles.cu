// Exercise skeleton generated from solutions/05-four-steps/step5_tiles.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// Step 5, fuse through tiles: gpu5.
//   run:  build-ex/chapters/05-four-steps/vortex --stage gpu4,gpu5 [--variants]
//   test: meson test -C build-ex four-steps-gpu5 four-steps-gpu5-idea --print-errorlogs
// After step 4 every pass reads and writes each value once, and the passes still trade their
// results through DRAM: about 1000 bytes per cell update where the least is 256 (the state
// read and written once per Runge-Kutta stage, four_steps.h). Step 5 is cpu4's tiling on the
// GPU: one kernel per Runge-Kutta stage, a block per tile of cells. The block loads its tile of
// the state with the two-cell halo that the reconstruction reaches into shared memory, computes
// the primitive variables and the viscosity of each cell once (the tile and one ring), then
// each face's flux once (the faces on the tile's edge too), and updates its cells: the
// primitives and fluxes never leave the SM. The last stage's kernel also folds the stable rate
// of each new cell into the clock, so that the next step needs no reduction pass over the state.
// What still limits it: each block loads its halo too (a tile of 32 x 8 cells loads 36 x 12),
// and computes the faces and primitives of its edge that its neighbours compute again.
#include <cstdint>
#include <iterator>

#include "check.h"
#include "step_support.h"
#include "stress.h"

namespace {

// How far from a face its flux reaches: the reconstruction's two cells on each side. (The stress
// suite's build without the second ring of the halo must fail.)
constexpr int kHalo = 2 - int(tut::stress::removed("second_halo_ring"));

// A block's tile of TX x TY cells, one thread per cell, and where it lives in shared memory:
// the state of the tile and its halo, plane after plane (kVars x LY x LX doubles); u, v, T and
// the viscosity of the tile and one ring (4 x PY x PX); the fluxes through the west faces of
// TX + 1 columns (the tile's and the east edge's) and the south faces of TY + 1 rows.
template <int TX, int TY>
struct Tile {
  static constexpr int kThreads = TX * TY;
  static constexpr int LX = TX + 2 * kHalo, LY = TY + 2 * kHalo;  // the state with its halo
  static constexpr int PX = TX + 2, PY = TY + 2;                  // primitives: one ring
  static constexpr int kState = kVars * LY * LX, kPrims = 4 * PY * PX;
  static constexpr int kFluxX = kVars * TY * (TX + 1), kFluxY = kVars * (TY + 1) * TX;
  static constexpr size_t kBytes = sizeof(double) * (kState + kPrims + kFluxX + kFluxY);

  double* state;  // [v][r][c]: cell (i0 + c - kHalo, j0 + r - kHalo)
  double *u, *v, *T, *mu;  // [r][c]: cell (i0 + c - 1, j0 + r - 1)
  double *flux_x, *flux_y;  // [v][r][c]: the west face of cell (i0 + c, j0 + r); the south face

  __device__ explicit Tile(double* shared)
      : state(shared), u(state + kState), v(u + PY * PX), T(v + PY * PX), mu(T + PY * PX),
        flux_x(u + kPrims), flux_y(flux_x + kFluxX) {}

  // The cell (c, r) of the tile (from -kHalo to TX + kHalo - 1), its primitives (from -1 to TX).
  __device__ Cons cell(int c, int r) const {
    const int k = (r + kHalo) * LX + c + kHalo;
    return {state[k], state[LY * LX + k], state[2 * LY * LX + k], state[3 * LY * LX + k]};
  }
  __device__ Prim prim(int c, int r) const {
    const int k = (r + 1) * PX + c + 1;
    return {0, u[k], v[k], 0, T[k]};  // what the viscous fluxes read: u, v and T
  }
  __device__ double viscosity(int c, int r) const { return mu[(r + 1) * PX + c + 1]; }
};

// i on a periodic line of n cells, for any i >= -n (a small mesh is narrower than a tile).
__device__ __forceinline__ int periodic(int i, int n) { return (i + n) % n; }

// The largest of the block's values of `rate` into the clock's rate_bits: a warp's by shuffles,
// the warps' through shared memory, then one atomicMax per block (non-negative doubles order
// like their bits).
__device__ void fold_rate_into(Clock* clock, double rate) {
  __shared__ double warp_max[32];
  for (int lane_gap = 16; lane_gap > 0; lane_gap /= 2) rate = fmax(rate, __shfl_xor_sync(~0u, rate, lane_gap));
  const int t = threadIdx.x + blockDim.x * threadIdx.y, warps = blockDim.x * blockDim.y / 32;
  if (t % 32 == 0) warp_max[t / 32] = rate;
  __syncthreads();
  if (t == 0) {
    for (int w = 1; w < warps; ++w) rate = fmax(rate, warp_max[w]);
    atomicMax(&clock->rate_bits, static_cast<unsigned long long>(__double_as_longlong(rate)));
  }
}

// One Runge-Kutta stage on a TX x TY tile of cells: in -> out, u the step's start state. LAST:
// the step's last stage, which folds the new state's stable rate into clock->rate_bits.
template <int TX, int TY, bool LAST>
__global__ void __launch_bounds__(TX * TY) stage_on_tile(Mesh m, Gas g, RungeKuttaStage rk, Clock* clock,
                                                         const double* u, const double* __restrict__ in, double* out) {
  extern __shared__ double shared[];
  using Layout = Tile<TX, TY>;
  const Layout tile(shared);
  const int i0 = blockIdx.x * TX, j0 = blockIdx.y * TY, t = threadIdx.x + TX * threadIdx.y;
  const size_t plane = m.plane();

  // TODO(exercise): load the tile's state and its halo, then the primitives and viscosity of the tile
  //   and one ring, each cell's once: the two loops below, a __syncthreads() after each

  // Each face's flux once: convective minus viscous, as step 3's fluxes_x and fluxes_y.
  for (int k = t; k < TY * (TX + 1); k += Layout::kThreads) {  // the west face of tile cell (c, r)
    const int r = k / (TX + 1), c = k % (TX + 1);
    const Cons a = tile.cell(c - 2, r), b = tile.cell(c - 1, r), cc = tile.cell(c, r), d = tile.cell(c + 1, r);
    const Cons convective = rusanov_flux<true, false>(g, left_of_face(a, b, cc), right_of_face(b, cc, d));
    const Cons viscous = viscous_flux<true, false>(m, g, tile.prim(c - 1, r), tile.prim(c, r), tile.prim(c - 1, r - 1),
                                                   tile.prim(c - 1, r + 1), tile.prim(c, r - 1), tile.prim(c, r + 1),
                                                   tile.viscosity(c - 1, r), tile.viscosity(c, r));
    const Cons f = minus(convective, viscous);
    const int stride = TY * (TX + 1);
    tile.flux_x[k] = f.rho, tile.flux_x[stride + k] = f.mx, tile.flux_x[2 * stride + k] = f.my, tile.flux_x[3 * stride + k] = f.e;
  }
  for (int k = t; k < (TY + 1) * TX; k += Layout::kThreads) {  // the south face of tile cell (c, r)
    const int r = k / TX, c = k % TX;
    const Cons a = tile.cell(c, r - 2), b = tile.cell(c, r - 1), cc = tile.cell(c, r), d = tile.cell(c, r + 1);
    const Cons convective = rusanov_flux<true, true>(g, left_of_face(a, b, cc), right_of_face(b, cc, d));
    const Cons viscous = viscous_flux<true, true>(m, g, tile.prim(c, r - 1), tile.prim(c, r), tile.prim(c - 1, r - 1),
                                                  tile.prim(c + 1, r - 1), tile.prim(c - 1, r), tile.prim(c + 1, r),
                                                  tile.viscosity(c, r - 1), tile.viscosity(c, r));
    const Cons f = minus(convective, viscous);
    const int stride = (TY + 1) * TX;
    tile.flux_y[k] = f.rho, tile.flux_y[stride + k] = f.mx, tile.flux_y[2 * stride + k] = f.my, tile.flux_y[3 * stride + k] = f.e;
  }
  __syncthreads();

  // The thread's own cell: the residual from its four faces, and its update.
  const int c = threadIdx.x, r = threadIdx.y, i = i0 + c, j = j0 + r;
  double rate = 0;
  if (i < m.nx && j < m.ny) {
    const double dt = clock->dt;
    const size_t cell = at(m, i, j);
    const Cons here = tile.cell(c, r);
    const double in_values[kVars] = {here.rho, here.mx, here.my, here.e};
    double new_values[kVars];
    UNROLL_FULLY
    for (int v = 0; v < kVars; ++v) {
      const double* fx = tile.flux_x + v * TY * (TX + 1);
      const double* fy = tile.flux_y + v * (TY + 1) * TX;
      const double residual = (fx[r * (TX + 1) + c] - fx[r * (TX + 1) + c + 1]) * m.inv_dx +
                              (fy[r * TX + c] - fy[(r + 1) * TX + c]) * m.inv_dy;
      new_values[v] = runge_kutta(rk, u[v * plane + cell], in_values[v], dt, residual);
      out[v * plane + cell] = new_values[v];
    }
    if (LAST) rate = stable_rate<false>(m, g, Cons{new_values[0], new_values[1], new_values[2], new_values[3]});
  }
  if (LAST) fold_rate_into(clock, rate);
}

// A time step: the first of a run reduces the state for its step; later ones take the rate the
// previous step's last stage folded in.
template <int TX, int TY>
void run_tiles(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  using Layout = Tile<TX, TY>;
  static const bool shared_allowed = [] {  // more than 48 KiB of shared memory a block, where asked
    for (const void* kernel : {reinterpret_cast<const void*>(stage_on_tile<TX, TY, false>),
                               reinterpret_cast<const void*>(stage_on_tile<TX, TY, true>)})
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Layout::kBytes)));
    return true;
  }();
  (void)shared_allowed;
  const Mesh& m = p.mesh;
  const dim3 grid(blocks_for(m.nx, TX), blocks_for(m.ny, TY)), block(TX, TY);
  for (int n = 0; n < steps; ++n) {
    if (n == 0) {
      CUDA_CHECK(cudaMemsetAsync(&clock->rate_bits, 0, sizeof(clock->rate_bits)));
      device_time_step(p, q, clock);
    } else {
      device_step_from_rate(p, clock);
    }
    for (int s = 0; s < 3; ++s) {
      const StageBuffers b = stage_buffers(m, q, work, s);
      if (s < 2)
        stage_on_tile<TX, TY, false><<<grid, block, Layout::kBytes>>>(m, p.gas, kRungeKutta[s], clock, q, b.in, b.out);
      else
        stage_on_tile<TX, TY, true><<<grid, block, Layout::kBytes>>>(m, p.gas, kRungeKutta[s], clock, q, b.in, b.out);
    }
  }
  CUDA_CHECK_LAUNCH();
}

// The tile shapes `vortex --variants` times and the tests check; gpu5 runs the first.
constexpr FourStepsVariant kTileShapes[] = {
    {"gpu5_32x8", run_tiles<32, 8>},  {"gpu5_32x4", run_tiles<32, 4>},   {"gpu5_32x16", run_tiles<32, 16>},
    {"gpu5_64x4", run_tiles<64, 4>},  {"gpu5_64x8", run_tiles<64, 8>},   {"gpu5_16x16", run_tiles<16, 16>},
};

}  // namespace

const FourStepsCode four_steps_gpu5{run_tiles<32, 8>, kRungeKuttaPlanes, 1, kTileShapes, int(std::size(kTileShapes))};
