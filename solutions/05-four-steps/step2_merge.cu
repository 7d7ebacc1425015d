// Step 2, merge kernels: cpu2, gpu2, acc2.
//   run:  build/chapters/05-four-steps/vortex --stage cpu1,cpu2,gpu1,gpu2,acc1,acc2
//   test: meson test -C build four-steps-cpu2 four-steps-gpu2 four-steps-acc2 --print-errorlogs
// Passes with the same memory pattern become one: the local viscosity; the fluxes in x, the
// convective and the viscous flux of a face added in one pass, stored once; the same in y; the
// integral and the Runge-Kutta update, which read the same cell. Eight passes per Runge-Kutta
// stage become four, and the residual and the separate viscous fluxes never go to memory: about
// half the bytes of step 1. What still limits it: divisions the formulas spell out one by one.
#include "check.h"
#include "four_passes.h"

namespace {

// The four passes' cells (four_passes.h runs them on each side).
struct Cells {
  static HD void local_viscosity(const Mesh& m, const Gas& g, const double* __restrict__ in, double* __restrict__ mu,
                                 int i, int j) {
    mu[at(m, i, j)] = viscosity<false>(g, primitive<false>(g, load_cell(m, in, at(m, i, j))).T);
  }

  static HD Prim primitive_at(const Mesh& m, const Gas& g, const double* __restrict__ in, int i, int j) {
    return primitive<false>(g, load_cell(m, in, at(m, i, j)));
  }

  // Through the west face of cell (i, j): convective minus viscous flux, both from the same cells.
  static HD void fluxes_x(const Mesh& m, const Gas& g, const double* __restrict__ in, const double* __restrict__ mu,
                          double* __restrict__ flux, int i, int j) {
    const int w = wrap(i, -1, m.nx), s = wrap(j, -1, m.ny), n = wrap(j, 1, m.ny);
    // EXERCISE: the face's convective flux (Rusanov, from the reconstructed states of cells i - 2
    //   to i + 1) minus its viscous flux (cells w and i and their neighbours s and n), stored once
    const Cons a = load_cell(m, in, at(m, wrap(i, -2, m.nx), j)), b = load_cell(m, in, at(m, w, j));
    const Cons c = load_cell(m, in, at(m, i, j)), d = load_cell(m, in, at(m, wrap(i, 1, m.nx), j));
    const Cons convective = rusanov_flux<false, false>(g, left_of_face(a, b, c), right_of_face(b, c, d));
    const Cons viscous = viscous_flux<false, false>(m, g, primitive<false>(g, b), primitive<false>(g, c),
                                                    primitive_at(m, g, in, w, s), primitive_at(m, g, in, w, n),
                                                    primitive_at(m, g, in, i, s), primitive_at(m, g, in, i, n),
                                                    mu[at(m, w, j)], mu[at(m, i, j)]);
    store_cell(m, flux, at(m, i, j), minus(convective, viscous));
  }

  // Through the south face of cell (i, j).
  static HD void fluxes_y(const Mesh& m, const Gas& g, const double* __restrict__ in, const double* __restrict__ mu,
                          double* __restrict__ flux, int i, int j) {
    const int s = wrap(j, -1, m.ny), w = wrap(i, -1, m.nx), e = wrap(i, 1, m.nx);
    const Cons a = load_cell(m, in, at(m, i, wrap(j, -2, m.ny))), b = load_cell(m, in, at(m, i, s));
    const Cons c = load_cell(m, in, at(m, i, j)), d = load_cell(m, in, at(m, i, wrap(j, 1, m.ny)));
    const Cons convective = rusanov_flux<false, true>(g, left_of_face(a, b, c), right_of_face(b, c, d));
    const Cons viscous = viscous_flux<false, true>(m, g, primitive<false>(g, b), primitive<false>(g, c),
                                                   primitive_at(m, g, in, w, s), primitive_at(m, g, in, e, s),
                                                   primitive_at(m, g, in, w, j), primitive_at(m, g, in, e, j),
                                                   mu[at(m, i, s)], mu[at(m, i, j)]);
    store_cell(m, flux, at(m, i, j), minus(convective, viscous));
  }

  // The residual of cell (i, j) and its Runge-Kutta update at once: the residual stays a register.
  static HD void integral_and_update(const Mesh& m, RungeKuttaStage rk, double dt, const double* u,
                                     const double* __restrict__ in, const double* __restrict__ flux_x,
                                     const double* __restrict__ flux_y, double* out, int i, int j) {
    const size_t cell = at(m, i, j), east = at(m, wrap(i, 1, m.nx), j), north = at(m, i, wrap(j, 1, m.ny));
    for (int v = 0; v < kVars; ++v) {
      const size_t p = v * m.plane();
      const double residual = (flux_x[p + cell] - flux_x[p + east]) / m.dx + (flux_y[p + cell] - flux_y[p + north]) / m.dy;
      out[p + cell] = runge_kutta(rk, u[p + cell], in[p + cell], dt, residual);
    }
  }
};

#ifndef _OPENACC  // nvcc's pass: the CUDA kernels, a thread per cell

__global__ void local_viscosity_kernel(Mesh m, Gas g, const double* __restrict__ in, double* __restrict__ mu) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::local_viscosity(m, g, in, mu, i, j);
}
__global__ void fluxes_x_kernel(Mesh m, Gas g, const double* __restrict__ in, const double* __restrict__ mu,
                                double* __restrict__ flux) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::fluxes_x(m, g, in, mu, flux, i, j);
}
__global__ void fluxes_y_kernel(Mesh m, Gas g, const double* __restrict__ in, const double* __restrict__ mu,
                                double* __restrict__ flux) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::fluxes_y(m, g, in, mu, flux, i, j);
}
__global__ void integral_and_update_kernel(Mesh m, RungeKuttaStage rk, const Clock* __restrict__ clock, const double* u,
                                           const double* __restrict__ in, const double* __restrict__ flux_x,
                                           const double* __restrict__ flux_y, double* out) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::integral_and_update(m, rk, clock->dt, u, in, flux_x, flux_y, out, i, j);
}

constexpr MergedKernels kKernels{local_viscosity_kernel, fluxes_x_kernel, fluxes_y_kernel, integral_and_update_kernel};
#endif

}  // namespace

#ifndef _OPENACC
const FourStepsCode four_steps_cpu2{run_merged_on_host<Cells>, kFourPassWorkPlanes};
const FourStepsCode four_steps_gpu2{run_merged_kernels<kKernels>, kFourPassWorkPlanes};
#else
const FourStepsCode four_steps_acc2{run_merged_in_regions<Cells>, kFourPassWorkPlanes};
#endif
