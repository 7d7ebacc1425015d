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
#include "step_support.h"

namespace {

// The workspace after the two Runge-Kutta states: fluxes and residual, kVars planes each.
struct Work {
  double *convective_x, *convective_y, *residual, *mu, *viscous_x, *viscous_y;
};
constexpr int kWorkPlanes = kRungeKuttaPlanes + 5 * kVars + 1;
Work work_planes(const Mesh& m, double* work) {
  double* w = work + kRungeKuttaPlanes * m.plane();
  const size_t set = kVars * m.plane();
  return {w, w + set, w + 2 * set, w + 3 * set, w + 3 * set + m.plane(), w + 4 * set + m.plane()};
}

// Face (i, j) of an x pass is the west face of cell (i, j); of a y pass, its south face.
HD void convective_flux_x(const Mesh& m, const Gas& g, const double* __restrict__ in, double* __restrict__ flux, int i, int j) {
  const Cons a = load_cell(m, in, at(m, wrap(i, -2, m.nx), j)), b = load_cell(m, in, at(m, wrap(i, -1, m.nx), j));
  const Cons c = load_cell(m, in, at(m, i, j)), d = load_cell(m, in, at(m, wrap(i, 1, m.nx), j));
  store_cell(m, flux, at(m, i, j), rusanov_flux<false, false>(g, left_of_face(a, b, c), right_of_face(b, c, d)));
}

HD void convective_flux_y(const Mesh& m, const Gas& g, const double* __restrict__ in, double* __restrict__ flux, int i, int j) {
  const Cons a = load_cell(m, in, at(m, i, wrap(j, -2, m.ny))), b = load_cell(m, in, at(m, i, wrap(j, -1, m.ny)));
  const Cons c = load_cell(m, in, at(m, i, j)), d = load_cell(m, in, at(m, i, wrap(j, 1, m.ny)));
  store_cell(m, flux, at(m, i, j), rusanov_flux<false, true>(g, left_of_face(a, b, c), right_of_face(b, c, d)));
}

// The residual of cell (i, j): what its four faces bring in, face by face.
HD void convective_integral(const Mesh& m, const double* __restrict__ flux_x, const double* __restrict__ flux_y, double* __restrict__ residual, int i, int j) {
  const size_t cell = at(m, i, j), east = at(m, wrap(i, 1, m.nx), j), north = at(m, i, wrap(j, 1, m.ny));
  for (int v = 0; v < kVars; ++v) {
    const size_t p = v * m.plane();
    // TODO(exercise): add up the four faces in a local value, then store the residual once
  }
}

HD void local_viscosity(const Mesh& m, const Gas& g, const double* __restrict__ in, double* __restrict__ mu, int i, int j) {
  mu[at(m, i, j)] = viscosity<false>(g, primitive<false>(g, load_cell(m, in, at(m, i, j))).T);
}

HD Prim primitive_at(const Mesh& m, const Gas& g, const double* __restrict__ in, int i, int j) {
  return primitive<false>(g, load_cell(m, in, at(m, i, j)));
}

HD void viscous_flux_x(const Mesh& m, const Gas& g, const double* __restrict__ in, const double* __restrict__ mu, double* __restrict__ flux, int i, int j) {
  const int w = wrap(i, -1, m.nx), s = wrap(j, -1, m.ny), n = wrap(j, 1, m.ny);
  store_cell(m, flux, at(m, i, j),
             viscous_flux<false, false>(m, g, primitive_at(m, g, in, w, j), primitive_at(m, g, in, i, j),
                                        primitive_at(m, g, in, w, s), primitive_at(m, g, in, w, n),
                                        primitive_at(m, g, in, i, s), primitive_at(m, g, in, i, n),
                                        mu[at(m, w, j)], mu[at(m, i, j)]));
}

HD void viscous_flux_y(const Mesh& m, const Gas& g, const double* __restrict__ in, const double* __restrict__ mu, double* __restrict__ flux, int i, int j) {
  const int s = wrap(j, -1, m.ny), w = wrap(i, -1, m.nx), e = wrap(i, 1, m.nx);
  store_cell(m, flux, at(m, i, j),
             viscous_flux<false, true>(m, g, primitive_at(m, g, in, i, s), primitive_at(m, g, in, i, j),
                                       primitive_at(m, g, in, w, s), primitive_at(m, g, in, e, s),
                                       primitive_at(m, g, in, w, j), primitive_at(m, g, in, e, j),
                                       mu[at(m, i, s)], mu[at(m, i, j)]));
}

// Viscous fluxes leave through the faces the other way: + east - west.
HD void viscous_integral(const Mesh& m, const double* __restrict__ flux_x, const double* __restrict__ flux_y, double* __restrict__ residual, int i, int j) {
  const size_t cell = at(m, i, j), east = at(m, wrap(i, 1, m.nx), j), north = at(m, i, wrap(j, 1, m.ny));
  for (int v = 0; v < kVars; ++v) {
    const size_t p = v * m.plane();
    const double out_x = flux_x[p + east] - flux_x[p + cell], out_y = flux_y[p + north] - flux_y[p + cell];
    residual[p + cell] += out_x / m.dx + out_y / m.dy;
  }
}

// In the last stage out is the state u itself (see stage_buffers): those two overlap, so they
// alone are not __restrict__.
HD void runge_kutta_update(const Mesh& m, RungeKuttaStage rk, const Clock* __restrict__ clock, const double* u,
                           const double* __restrict__ in, const double* __restrict__ residual, double* out, int i, int j) {
  const size_t cell = at(m, i, j);
  const double dt = clock->dt;  // once: step 0 reloaded it after each store to out
  for (int v = 0; v < kVars; ++v) {
    const size_t k = v * m.plane() + cell;
    out[k] = runge_kutta(rk, u[k], in[k], dt, residual[k]);
  }
}

#ifndef _OPENACC  // nvcc's pass: the CPU and CUDA stages

// --- CPU: one OpenMP region around the whole time loop; each pass an `omp for` ---------------

void run_cpu1(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  const Mesh& m = p.mesh;
  const Gas& g = p.gas;
  const Work w = work_planes(m, work);
#pragma omp parallel
  for (int n = 0; n < steps; ++n) {
    host_time_step(p, q, clock);
    for (int s = 0; s < 3; ++s) {
      const StageBuffers b = stage_buffers(m, q, work, s);
      for_each_cell(m, [&](int i, int j) { convective_flux_x(m, g, b.in, w.convective_x, i, j); });
      for_each_cell(m, [&](int i, int j) { convective_flux_y(m, g, b.in, w.convective_y, i, j); });
      for_each_cell(m, [&](int i, int j) { convective_integral(m, w.convective_x, w.convective_y, w.residual, i, j); });
      for_each_cell(m, [&](int i, int j) { local_viscosity(m, g, b.in, w.mu, i, j); });
      for_each_cell(m, [&](int i, int j) { viscous_flux_x(m, g, b.in, w.mu, w.viscous_x, i, j); });
      for_each_cell(m, [&](int i, int j) { viscous_flux_y(m, g, b.in, w.mu, w.viscous_y, i, j); });
      for_each_cell(m, [&](int i, int j) { viscous_integral(m, w.viscous_x, w.viscous_y, w.residual, i, j); });
      for_each_cell(m, [&](int i, int j) { runge_kutta_update(m, kRungeKutta[s], clock, q, b.in, w.residual, b.out, i, j); });
    }
  }
}


// --- GPU: one kernel per pass, a thread per cell ------------------------------------------------

__global__ void convective_flux_x_kernel(Mesh m, Gas g, const double* __restrict__ in, double* __restrict__ flux) {
  int i, j;
  if (thread_cell(m, i, j)) convective_flux_x(m, g, in, flux, i, j);
}
__global__ void convective_flux_y_kernel(Mesh m, Gas g, const double* __restrict__ in, double* __restrict__ flux) {
  int i, j;
  if (thread_cell(m, i, j)) convective_flux_y(m, g, in, flux, i, j);
}
__global__ void convective_integral_kernel(Mesh m, const double* __restrict__ flux_x, const double* __restrict__ flux_y, double* __restrict__ residual) {
  int i, j;
  if (thread_cell(m, i, j)) convective_integral(m, flux_x, flux_y, residual, i, j);
}
__global__ void local_viscosity_kernel(Mesh m, Gas g, const double* __restrict__ in, double* __restrict__ mu) {
  int i, j;
  if (thread_cell(m, i, j)) local_viscosity(m, g, in, mu, i, j);
}
__global__ void viscous_flux_x_kernel(Mesh m, Gas g, const double* __restrict__ in, const double* __restrict__ mu, double* __restrict__ flux) {
  int i, j;
  if (thread_cell(m, i, j)) viscous_flux_x(m, g, in, mu, flux, i, j);
}
__global__ void viscous_flux_y_kernel(Mesh m, Gas g, const double* __restrict__ in, const double* __restrict__ mu, double* __restrict__ flux) {
  int i, j;
  if (thread_cell(m, i, j)) viscous_flux_y(m, g, in, mu, flux, i, j);
}
__global__ void viscous_integral_kernel(Mesh m, const double* __restrict__ flux_x, const double* __restrict__ flux_y, double* __restrict__ residual) {
  int i, j;
  if (thread_cell(m, i, j)) viscous_integral(m, flux_x, flux_y, residual, i, j);
}
__global__ void runge_kutta_kernel(Mesh m, RungeKuttaStage rk, const Clock* __restrict__ clock, const double* u,
                                   const double* __restrict__ in, const double* __restrict__ residual, double* out) {
  int i, j;
  if (thread_cell(m, i, j)) runge_kutta_update(m, rk, clock, u, in, residual, out, i, j);
}

void run_gpu1(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  const Mesh& m = p.mesh;
  const Gas& g = p.gas;
  const Work w = work_planes(m, work);
  const dim3 grid = cell_grid(m);
  for (int n = 0; n < steps; ++n) {
    device_time_step(p, q, clock);
    for (int s = 0; s < 3; ++s) {
      const StageBuffers b = stage_buffers(m, q, work, s);
      convective_flux_x_kernel<<<grid, kCellBlock>>>(m, g, b.in, w.convective_x);
      convective_flux_y_kernel<<<grid, kCellBlock>>>(m, g, b.in, w.convective_y);
      convective_integral_kernel<<<grid, kCellBlock>>>(m, w.convective_x, w.convective_y, w.residual);
      local_viscosity_kernel<<<grid, kCellBlock>>>(m, g, b.in, w.mu);
      viscous_flux_x_kernel<<<grid, kCellBlock>>>(m, g, b.in, w.mu, w.viscous_x);
      viscous_flux_y_kernel<<<grid, kCellBlock>>>(m, g, b.in, w.mu, w.viscous_y);
      viscous_integral_kernel<<<grid, kCellBlock>>>(m, w.viscous_x, w.viscous_y, w.residual);
      runge_kutta_kernel<<<grid, kCellBlock>>>(m, kRungeKutta[s], clock, q, b.in, w.residual, b.out);
    }
  }
  CUDA_CHECK_LAUNCH();
}

#else  // GCC's OpenACC pass over this file: the acc stage

// --- OpenACC: step 0's data region and compute regions, on this file's cells ---------------------
void run_acc1(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  const Mesh m = p.mesh;
  const Gas g = p.gas;
  const size_t state = kVars * m.plane(), scratch = kWorkPlanes * m.plane();
#pragma acc data copy(q[0:state], clock[0:1]) create(work[0:scratch])
#pragma acc host_data use_device(q, work, clock)
  {
    const Work w = work_planes(m, work);
    for (int n = 0; n < steps; ++n) {
      acc_time_step(p, q, clock);
      for (int s = 0; s < 3; ++s) {
        const StageBuffers b = stage_buffers(m, q, work, s);
        const RungeKuttaStage rk = kRungeKutta[s];
        acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { convective_flux_x(m, g, b.in, w.convective_x, i, j); });
        acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { convective_flux_y(m, g, b.in, w.convective_y, i, j); });
        acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { convective_integral(m, w.convective_x, w.convective_y, w.residual, i, j); });
        acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { local_viscosity(m, g, b.in, w.mu, i, j); });
        acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { viscous_flux_x(m, g, b.in, w.mu, w.viscous_x, i, j); });
        acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { viscous_flux_y(m, g, b.in, w.mu, w.viscous_y, i, j); });
        acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { viscous_integral(m, w.viscous_x, w.viscous_y, w.residual, i, j); });
        acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { runge_kutta_update(m, rk, clock, q, b.in, w.residual, b.out, i, j); });
      }
    }
  }
}
#endif

}  // namespace

#ifndef _OPENACC
const FourStepsCode four_steps_cpu1{run_cpu1, kWorkPlanes};
const FourStepsCode four_steps_gpu1{run_gpu1, kWorkPlanes};
#else
const FourStepsCode four_steps_acc1{run_acc1, kWorkPlanes};
#endif
