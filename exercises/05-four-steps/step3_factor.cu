// Exercise skeleton generated from solutions/05-four-steps/step3_factor.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// Step 3, factor computations: cpu3, gpu3, acc3.
//   run:  build-ex/chapters/05-four-steps/vortex --stage cpu2,cpu3,gpu2,gpu3,acc2,acc3
//   test: meson test -C build-ex four-steps-cpu3 four-steps-gpu3 four-steps-acc3 --print-errorlogs
// Step 2's four passes with the arithmetic rewritten: a division costs many multiplications (on
// the GPU a double division is a software sequence of a reciprocal and corrections), so every
// quotient by the same value becomes one inverse and products: 1/rho once per cell, 1/dx and
// 1/dy once per run, constants such as cp/Pr folded (cell_physics.h with kFactored = true), and
// T^1.5 as T sqrt(T) instead of pow. The loops over the four variables are unrolled on purpose
// (UNROLL_FULLY, in cell_physics.h), so that their loads can all be in flight at once. What still limits it:
// rows of 2001 doubles start anywhere in a 128-byte line, so a warp's row segment spans one line
// more than it needs.
#include "check.h"
#include "four_passes.h"

namespace {

// Step 2's cells with factored arithmetic (four_passes.h runs them on each side; step 4 runs
// the same stages again on padded rows).
struct Cells {
  static HD void local_viscosity(const Mesh& m, const Gas& g, const double* __restrict__ in, double* __restrict__ mu,
                                 int i, int j) {
    mu[at(m, i, j)] = viscosity<true>(g, primitive<true>(g, load_cell(m, in, at(m, i, j))).T);
  }

  static HD Prim primitive_at(const Mesh& m, const Gas& g, const double* __restrict__ in, int i, int j) {
    return primitive<true>(g, load_cell(m, in, at(m, i, j)));
  }

  // Through the west face of cell (i, j): convective minus viscous flux, both from the same cells.
  static HD void fluxes_x(const Mesh& m, const Gas& g, const double* __restrict__ in, const double* __restrict__ mu,
                          double* __restrict__ flux, int i, int j) {
    const int w = wrap(i, -1, m.nx), s = wrap(j, -1, m.ny), n = wrap(j, 1, m.ny);
    const Cons a = load_cell(m, in, at(m, wrap(i, -2, m.nx), j)), b = load_cell(m, in, at(m, w, j));
    const Cons c = load_cell(m, in, at(m, i, j)), d = load_cell(m, in, at(m, wrap(i, 1, m.nx), j));
    const Cons convective = rusanov_flux<true, false>(g, left_of_face(a, b, c), right_of_face(b, c, d));
    const Cons viscous = viscous_flux<true, false>(m, g, primitive<true>(g, b), primitive<true>(g, c),
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
    const Cons convective = rusanov_flux<true, true>(g, left_of_face(a, b, c), right_of_face(b, c, d));
    const Cons viscous = viscous_flux<true, true>(m, g, primitive<true>(g, b), primitive<true>(g, c),
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
    UNROLL_FULLY
    for (int v = 0; v < kVars; ++v) {
      const size_t p = v * m.plane();
      // TODO(exercise): the residual as step 2 computes it, with the divisions by dx and dy turned into
      //   multiplications by the mesh's inverses m.inv_dx and m.inv_dy
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
const FourStepsCode four_steps_cpu3{run_merged_on_host<Cells>, kFourPassWorkPlanes};
const FourStepsCode four_steps_gpu3{run_merged_kernels<kKernels>, kFourPassWorkPlanes};
#else
const FourStepsCode four_steps_acc3{run_merged_in_regions<Cells>, kFourPassWorkPlanes};
#endif
