// Exercise skeleton generated from solutions/05-four-steps/step0_adapt.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// Step 0, adaptation: the code as it first runs in parallel. ref, cpu0, gpu0, acc0.
//   run:  build-ex/chapters/05-four-steps/vortex --stage ref,cpu0,gpu0,acc0
//   test: meson test -C build-ex four-steps-ref four-steps-cpu0 four-steps-gpu0 four-steps-acc0 --print-errorlogs
// Each Runge-Kutta stage is eight operations, each a pass over the mesh, as the ONERA code lists
// them: convective fluxes in x, in y, their integral; local viscosity; viscous fluxes in x, in
// y, their integral; the Runge-Kutta update. A pass is a function of one cell (or face), below,
// called from an OpenMP loop (rows over threads, SIMD along a row) or from a CUDA kernel (one
// thread per cell, data resident on the GPU for the whole run), or from an OpenACC compute
// region (acc0: rows over gangs, a row's cells over vector lanes; a data region around the time
// loop keeps the arrays on the GPU; GCC compiles this file a second time, with -fopenacc, for
// it). The loops over the passes are eight_passes.h's, which step 1 shares. ref is the CPU code
// on one core.
// What still limits it: every value goes through memory, the integrals add into the residual in
// memory one face at a time, and nothing tells the compiler that the arrays do not overlap.
#include "check.h"
#include "eight_passes.h"

namespace {

// This file's cell functions, which the drivers of eight_passes.h call for every cell (a loop,
// a kernel or a compute region per pass).
struct Cells {
  // Face (i, j) of an x pass is the west face of cell (i, j); of a y pass, its south face.
  static HD void convective_flux_x(const Mesh& m, const Gas& g, const double* in, double* flux, int i, int j) {
    const Cons a = load_cell(m, in, at(m, wrap(i, -2, m.nx), j)), b = load_cell(m, in, at(m, wrap(i, -1, m.nx), j));
    const Cons c = load_cell(m, in, at(m, i, j)), d = load_cell(m, in, at(m, wrap(i, 1, m.nx), j));
    store_cell(m, flux, at(m, i, j), rusanov_flux<false, false>(g, left_of_face(a, b, c), right_of_face(b, c, d)));
  }

  static HD void convective_flux_y(const Mesh& m, const Gas& g, const double* in, double* flux, int i, int j) {
    const Cons a = load_cell(m, in, at(m, i, wrap(j, -2, m.ny))), b = load_cell(m, in, at(m, i, wrap(j, -1, m.ny)));
    const Cons c = load_cell(m, in, at(m, i, j)), d = load_cell(m, in, at(m, i, wrap(j, 1, m.ny)));
    store_cell(m, flux, at(m, i, j), rusanov_flux<false, true>(g, left_of_face(a, b, c), right_of_face(b, c, d)));
  }

  // The residual of cell (i, j): what its four faces bring in, face by face.
  static HD void convective_integral(const Mesh& m, const double* flux_x, const double* flux_y, double* residual, int i, int j) {
    const size_t cell = at(m, i, j), east = at(m, wrap(i, 1, m.nx), j), north = at(m, i, wrap(j, 1, m.ny));
    for (int v = 0; v < kVars; ++v) {
      const size_t p = v * m.plane();
      // TODO(exercise): the residual of variable v: 0, plus the flux in through the west face over dx,
      //   minus the flux out through the east face over dx, and the same along y with dy
    }
  }

  static HD void local_viscosity(const Mesh& m, const Gas& g, const double* in, double* mu, int i, int j) {
    mu[at(m, i, j)] = viscosity<false>(g, primitive<false>(g, load_cell(m, in, at(m, i, j))).T);
  }

  static HD Prim primitive_at(const Mesh& m, const Gas& g, const double* in, int i, int j) {
    return primitive<false>(g, load_cell(m, in, at(m, i, j)));
  }

  static HD void viscous_flux_x(const Mesh& m, const Gas& g, const double* in, const double* mu, double* flux, int i, int j) {
    const int w = wrap(i, -1, m.nx), s = wrap(j, -1, m.ny), n = wrap(j, 1, m.ny);
    store_cell(m, flux, at(m, i, j),
               viscous_flux<false, false>(m, g, primitive_at(m, g, in, w, j), primitive_at(m, g, in, i, j),
                                          primitive_at(m, g, in, w, s), primitive_at(m, g, in, w, n),
                                          primitive_at(m, g, in, i, s), primitive_at(m, g, in, i, n),
                                          mu[at(m, w, j)], mu[at(m, i, j)]));
  }

  static HD void viscous_flux_y(const Mesh& m, const Gas& g, const double* in, const double* mu, double* flux, int i, int j) {
    const int s = wrap(j, -1, m.ny), w = wrap(i, -1, m.nx), e = wrap(i, 1, m.nx);
    store_cell(m, flux, at(m, i, j),
               viscous_flux<false, true>(m, g, primitive_at(m, g, in, i, s), primitive_at(m, g, in, i, j),
                                         primitive_at(m, g, in, w, s), primitive_at(m, g, in, e, s),
                                         primitive_at(m, g, in, w, j), primitive_at(m, g, in, e, j),
                                         mu[at(m, i, s)], mu[at(m, i, j)]));
  }

  // Viscous fluxes leave through the faces the other way: + east - west.
  static HD void viscous_integral(const Mesh& m, const double* flux_x, const double* flux_y, double* residual, int i, int j) {
    const size_t cell = at(m, i, j), east = at(m, wrap(i, 1, m.nx), j), north = at(m, i, wrap(j, 1, m.ny));
    for (int v = 0; v < kVars; ++v) {
      const size_t p = v * m.plane();
      residual[p + cell] -= flux_x[p + cell] / m.dx;
      residual[p + cell] += flux_x[p + east] / m.dx;
      residual[p + cell] -= flux_y[p + cell] / m.dy;
      residual[p + cell] += flux_y[p + north] / m.dy;
    }
  }

  static HD void runge_kutta_update(const Mesh& m, RungeKuttaStage rk, const Clock* clock, const double* u, const double* in,
                                    const double* residual, double* out, int i, int j) {
    const size_t cell = at(m, i, j);
    for (int v = 0; v < kVars; ++v) {
      const size_t k = v * m.plane() + cell;
      out[k] = runge_kutta(rk, u[k], in[k], clock->dt, residual[k]);
    }
  }
};

#ifndef _OPENACC  // nvcc's pass: the CPU and CUDA stages (GCC's OpenACC pass: the acc stage)

// --- GPU: one kernel per pass, a thread per cell ------------------------------------------------

__global__ void convective_flux_x_kernel(Mesh m, Gas g, const double* in, double* flux) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::convective_flux_x(m, g, in, flux, i, j);
}
__global__ void convective_flux_y_kernel(Mesh m, Gas g, const double* in, double* flux) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::convective_flux_y(m, g, in, flux, i, j);
}
__global__ void convective_integral_kernel(Mesh m, const double* flux_x, const double* flux_y, double* residual) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::convective_integral(m, flux_x, flux_y, residual, i, j);
}
__global__ void local_viscosity_kernel(Mesh m, Gas g, const double* in, double* mu) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::local_viscosity(m, g, in, mu, i, j);
}
__global__ void viscous_flux_x_kernel(Mesh m, Gas g, const double* in, const double* mu, double* flux) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::viscous_flux_x(m, g, in, mu, flux, i, j);
}
__global__ void viscous_flux_y_kernel(Mesh m, Gas g, const double* in, const double* mu, double* flux) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::viscous_flux_y(m, g, in, mu, flux, i, j);
}
__global__ void viscous_integral_kernel(Mesh m, const double* flux_x, const double* flux_y, double* residual) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::viscous_integral(m, flux_x, flux_y, residual, i, j);
}
__global__ void runge_kutta_kernel(Mesh m, RungeKuttaStage rk, const Clock* clock, const double* u, const double* in,
                                   const double* residual, double* out) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::runge_kutta_update(m, rk, clock, u, in, residual, out, i, j);
}

constexpr PassKernels kKernels{convective_flux_x_kernel, convective_flux_y_kernel, convective_integral_kernel,
                               local_viscosity_kernel,   viscous_flux_x_kernel,    viscous_flux_y_kernel,
                               viscous_integral_kernel,  runge_kutta_kernel};
#endif

}  // namespace

#ifndef _OPENACC
const FourStepsCode four_steps_ref{run_passes_on_host<Cells, false>, kWorkPlanes};
const FourStepsCode four_steps_cpu0{run_passes_on_host<Cells>, kWorkPlanes};
const FourStepsCode four_steps_gpu0{run_pass_kernels<kKernels>, kWorkPlanes};
#else
const FourStepsCode four_steps_acc0{run_passes_in_regions<Cells>, kWorkPlanes};
#endif
