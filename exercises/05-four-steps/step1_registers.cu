// Exercise skeleton generated from solutions/05-four-steps/step1_registers.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// Step 1, reduce remote accesses: cpu1, gpu1, acc1.
//   run:  build-ex/chapters/05-four-steps/vortex --stage cpu0,cpu1,gpu0,gpu1,acc0,acc1
//   test: meson test -C build-ex four-steps-cpu1 four-steps-gpu1 four-steps-gpu1-idea four-steps-acc1 --print-errorlogs
// Step 0's eight passes, with what a pass reuses held in registers: the integrals add the four
// faces into a local value and store the residual once (step 0 wrote it to memory after every
// face), the update reads dt once (step 0 read it again after every store, since the store
// might have changed it), and every pointer is `__restrict__`: no array overlaps another, so the
// compiler may keep values, reorder loads before stores, and on the GPU read the inputs through
// the read-only path. What still limits it: eight passes, each a trip through DRAM.
#include "check.h"
#include "eight_passes.h"

namespace {

// This file's cell functions, which the drivers of eight_passes.h call for every cell (a loop,
// a kernel or a compute region per pass).
struct Cells {
  // Face (i, j) of an x pass is the west face of cell (i, j); of a y pass, its south face.
  static HD void convective_flux_x(const Mesh& m, const Gas& g, const double* __restrict__ in, double* __restrict__ flux, int i, int j) {
    const Cons a = load_cell(m, in, at(m, wrap(i, -2, m.nx), j)), b = load_cell(m, in, at(m, wrap(i, -1, m.nx), j));
    const Cons c = load_cell(m, in, at(m, i, j)), d = load_cell(m, in, at(m, wrap(i, 1, m.nx), j));
    store_cell(m, flux, at(m, i, j), rusanov_flux<false, false>(g, left_of_face(a, b, c), right_of_face(b, c, d)));
  }

  static HD void convective_flux_y(const Mesh& m, const Gas& g, const double* __restrict__ in, double* __restrict__ flux, int i, int j) {
    const Cons a = load_cell(m, in, at(m, i, wrap(j, -2, m.ny))), b = load_cell(m, in, at(m, i, wrap(j, -1, m.ny)));
    const Cons c = load_cell(m, in, at(m, i, j)), d = load_cell(m, in, at(m, i, wrap(j, 1, m.ny)));
    store_cell(m, flux, at(m, i, j), rusanov_flux<false, true>(g, left_of_face(a, b, c), right_of_face(b, c, d)));
  }

  // The residual of cell (i, j): what its four faces bring in, face by face.
  static HD void convective_integral(const Mesh& m, const double* __restrict__ flux_x, const double* __restrict__ flux_y, double* __restrict__ residual, int i, int j) {
    const size_t cell = at(m, i, j), east = at(m, wrap(i, 1, m.nx), j), north = at(m, i, wrap(j, 1, m.ny));
    for (int v = 0; v < kVars; ++v) {
      const size_t p = v * m.plane();
      // TODO(exercise): add up the four faces in a local value, then store the residual once
    }
  }

  static HD void local_viscosity(const Mesh& m, const Gas& g, const double* __restrict__ in, double* __restrict__ mu, int i, int j) {
    mu[at(m, i, j)] = viscosity<false>(g, primitive<false>(g, load_cell(m, in, at(m, i, j))).T);
  }

  static HD Prim primitive_at(const Mesh& m, const Gas& g, const double* __restrict__ in, int i, int j) {
    return primitive<false>(g, load_cell(m, in, at(m, i, j)));
  }

  static HD void viscous_flux_x(const Mesh& m, const Gas& g, const double* __restrict__ in, const double* __restrict__ mu, double* __restrict__ flux, int i, int j) {
    const int w = wrap(i, -1, m.nx), s = wrap(j, -1, m.ny), n = wrap(j, 1, m.ny);
    store_cell(m, flux, at(m, i, j),
               viscous_flux<false, false>(m, g, primitive_at(m, g, in, w, j), primitive_at(m, g, in, i, j),
                                          primitive_at(m, g, in, w, s), primitive_at(m, g, in, w, n),
                                          primitive_at(m, g, in, i, s), primitive_at(m, g, in, i, n),
                                          mu[at(m, w, j)], mu[at(m, i, j)]));
  }

  static HD void viscous_flux_y(const Mesh& m, const Gas& g, const double* __restrict__ in, const double* __restrict__ mu, double* __restrict__ flux, int i, int j) {
    const int s = wrap(j, -1, m.ny), w = wrap(i, -1, m.nx), e = wrap(i, 1, m.nx);
    store_cell(m, flux, at(m, i, j),
               viscous_flux<false, true>(m, g, primitive_at(m, g, in, i, s), primitive_at(m, g, in, i, j),
                                         primitive_at(m, g, in, w, s), primitive_at(m, g, in, e, s),
                                         primitive_at(m, g, in, w, j), primitive_at(m, g, in, e, j),
                                         mu[at(m, i, s)], mu[at(m, i, j)]));
  }

  // Viscous fluxes leave through the faces the other way: + east - west.
  static HD void viscous_integral(const Mesh& m, const double* __restrict__ flux_x, const double* __restrict__ flux_y, double* __restrict__ residual, int i, int j) {
    const size_t cell = at(m, i, j), east = at(m, wrap(i, 1, m.nx), j), north = at(m, i, wrap(j, 1, m.ny));
    for (int v = 0; v < kVars; ++v) {
      const size_t p = v * m.plane();
      const double out_x = flux_x[p + east] - flux_x[p + cell], out_y = flux_y[p + north] - flux_y[p + cell];
      residual[p + cell] += out_x / m.dx + out_y / m.dy;
    }
  }

  // In the last stage out is the state u itself (see stage_buffers): those two overlap, so they
  // alone are not __restrict__.
  static HD void runge_kutta_update(const Mesh& m, RungeKuttaStage rk, const Clock* __restrict__ clock, const double* u,
                                    const double* __restrict__ in, const double* __restrict__ residual, double* out, int i, int j) {
    const size_t cell = at(m, i, j);
    const double dt = clock->dt;  // once: step 0 reloaded it after each store to out
    for (int v = 0; v < kVars; ++v) {
      const size_t k = v * m.plane() + cell;
      out[k] = runge_kutta(rk, u[k], in[k], dt, residual[k]);
    }
  }
};

#ifndef _OPENACC  // nvcc's pass: the CPU and CUDA stages (GCC's OpenACC pass: the acc stage)

// --- GPU: one kernel per pass, a thread per cell ------------------------------------------------

__global__ void convective_flux_x_kernel(Mesh m, Gas g, const double* __restrict__ in, double* __restrict__ flux) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::convective_flux_x(m, g, in, flux, i, j);
}
__global__ void convective_flux_y_kernel(Mesh m, Gas g, const double* __restrict__ in, double* __restrict__ flux) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::convective_flux_y(m, g, in, flux, i, j);
}
__global__ void convective_integral_kernel(Mesh m, const double* __restrict__ flux_x, const double* __restrict__ flux_y, double* __restrict__ residual) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::convective_integral(m, flux_x, flux_y, residual, i, j);
}
__global__ void local_viscosity_kernel(Mesh m, Gas g, const double* __restrict__ in, double* __restrict__ mu) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::local_viscosity(m, g, in, mu, i, j);
}
__global__ void viscous_flux_x_kernel(Mesh m, Gas g, const double* __restrict__ in, const double* __restrict__ mu, double* __restrict__ flux) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::viscous_flux_x(m, g, in, mu, flux, i, j);
}
__global__ void viscous_flux_y_kernel(Mesh m, Gas g, const double* __restrict__ in, const double* __restrict__ mu, double* __restrict__ flux) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::viscous_flux_y(m, g, in, mu, flux, i, j);
}
__global__ void viscous_integral_kernel(Mesh m, const double* __restrict__ flux_x, const double* __restrict__ flux_y, double* __restrict__ residual) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::viscous_integral(m, flux_x, flux_y, residual, i, j);
}
__global__ void runge_kutta_kernel(Mesh m, RungeKuttaStage rk, const Clock* __restrict__ clock, const double* u,
                                   const double* __restrict__ in, const double* __restrict__ residual, double* out) {
  int i, j;
  if (thread_cell(m, i, j)) Cells::runge_kutta_update(m, rk, clock, u, in, residual, out, i, j);
}

constexpr PassKernels kKernels{convective_flux_x_kernel, convective_flux_y_kernel, convective_integral_kernel,
                               local_viscosity_kernel,   viscous_flux_x_kernel,    viscous_flux_y_kernel,
                               viscous_integral_kernel,  runge_kutta_kernel};
#endif

}  // namespace

#ifndef _OPENACC
const FourStepsCode four_steps_cpu1{run_passes_on_host<Cells>, kWorkPlanes};
const FourStepsCode four_steps_gpu1{run_pass_kernels<kKernels>, kWorkPlanes};
#else
const FourStepsCode four_steps_acc1{run_passes_in_regions<Cells>, kWorkPlanes};
#endif
