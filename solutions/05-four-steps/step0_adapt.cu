// Step 0, adaptation: the code as it first runs in parallel. ref, cpu0, gpu0, acc0.
//   run:  build/chapters/05-four-steps/vortex --stage ref,cpu0,gpu0,acc0
//   test: meson test -C build four-steps-ref four-steps-cpu0 four-steps-gpu0 four-steps-acc0 --print-errorlogs
// Each Runge-Kutta stage is eight operations, each a pass over the mesh, as the ONERA code lists
// them: convective fluxes in x, in y, their integral; local viscosity; viscous fluxes in x, in
// y, their integral; the Runge-Kutta update. A pass is a function of one cell (or face) called
// from an OpenMP loop (rows over threads, SIMD along a row) or from a CUDA kernel (one thread
// per cell, data resident on the GPU for the whole run), or from an OpenACC compute region
// (acc0: rows over gangs, a row's cells over vector lanes; a data region around the time loop
// keeps the arrays on the GPU; GCC compiles this file a second time, with -fopenacc, for it).
// ref is the CPU code on one core.
// What still limits it: every value goes through memory, the integrals add into the residual in
// memory one face at a time, and nothing tells the compiler that the arrays do not overlap.
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
HD void convective_flux_x(const Mesh& m, const Gas& g, const double* in, double* flux, int i, int j) {
  const Cons a = load_cell(m, in, at(m, wrap(i, -2, m.nx), j)), b = load_cell(m, in, at(m, wrap(i, -1, m.nx), j));
  const Cons c = load_cell(m, in, at(m, i, j)), d = load_cell(m, in, at(m, wrap(i, 1, m.nx), j));
  store_cell(m, flux, at(m, i, j), rusanov_flux<false, false>(g, left_of_face(a, b, c), right_of_face(b, c, d)));
}

HD void convective_flux_y(const Mesh& m, const Gas& g, const double* in, double* flux, int i, int j) {
  const Cons a = load_cell(m, in, at(m, i, wrap(j, -2, m.ny))), b = load_cell(m, in, at(m, i, wrap(j, -1, m.ny)));
  const Cons c = load_cell(m, in, at(m, i, j)), d = load_cell(m, in, at(m, i, wrap(j, 1, m.ny)));
  store_cell(m, flux, at(m, i, j), rusanov_flux<false, true>(g, left_of_face(a, b, c), right_of_face(b, c, d)));
}

// The residual of cell (i, j): what its four faces bring in, face by face.
HD void convective_integral(const Mesh& m, const double* flux_x, const double* flux_y, double* residual, int i, int j) {
  const size_t cell = at(m, i, j), east = at(m, wrap(i, 1, m.nx), j), north = at(m, i, wrap(j, 1, m.ny));
  for (int v = 0; v < kVars; ++v) {
    const size_t p = v * m.plane();
    // EXERCISE: the residual of variable v: 0, plus the flux in through the west face over dx,
    //   minus the flux out through the east face over dx, and the same along y with dy
    residual[p + cell] = 0;
    residual[p + cell] += flux_x[p + cell] / m.dx;
    residual[p + cell] -= flux_x[p + east] / m.dx;
    residual[p + cell] += flux_y[p + cell] / m.dy;
    residual[p + cell] -= flux_y[p + north] / m.dy;
  }
}

HD void local_viscosity(const Mesh& m, const Gas& g, const double* in, double* mu, int i, int j) {
  mu[at(m, i, j)] = viscosity<false>(g, primitive<false>(g, load_cell(m, in, at(m, i, j))).T);
}

HD Prim primitive_at(const Mesh& m, const Gas& g, const double* in, int i, int j) {
  return primitive<false>(g, load_cell(m, in, at(m, i, j)));
}

HD void viscous_flux_x(const Mesh& m, const Gas& g, const double* in, const double* mu, double* flux, int i, int j) {
  const int w = wrap(i, -1, m.nx), s = wrap(j, -1, m.ny), n = wrap(j, 1, m.ny);
  store_cell(m, flux, at(m, i, j),
             viscous_flux<false, false>(m, g, primitive_at(m, g, in, w, j), primitive_at(m, g, in, i, j),
                                        primitive_at(m, g, in, w, s), primitive_at(m, g, in, w, n),
                                        primitive_at(m, g, in, i, s), primitive_at(m, g, in, i, n),
                                        mu[at(m, w, j)], mu[at(m, i, j)]));
}

HD void viscous_flux_y(const Mesh& m, const Gas& g, const double* in, const double* mu, double* flux, int i, int j) {
  const int s = wrap(j, -1, m.ny), w = wrap(i, -1, m.nx), e = wrap(i, 1, m.nx);
  store_cell(m, flux, at(m, i, j),
             viscous_flux<false, true>(m, g, primitive_at(m, g, in, i, s), primitive_at(m, g, in, i, j),
                                       primitive_at(m, g, in, w, s), primitive_at(m, g, in, e, s),
                                       primitive_at(m, g, in, w, j), primitive_at(m, g, in, e, j),
                                       mu[at(m, i, s)], mu[at(m, i, j)]));
}

// Viscous fluxes leave through the faces the other way: + east - west.
HD void viscous_integral(const Mesh& m, const double* flux_x, const double* flux_y, double* residual, int i, int j) {
  const size_t cell = at(m, i, j), east = at(m, wrap(i, 1, m.nx), j), north = at(m, i, wrap(j, 1, m.ny));
  for (int v = 0; v < kVars; ++v) {
    const size_t p = v * m.plane();
    residual[p + cell] -= flux_x[p + cell] / m.dx;
    residual[p + cell] += flux_x[p + east] / m.dx;
    residual[p + cell] -= flux_y[p + cell] / m.dy;
    residual[p + cell] += flux_y[p + north] / m.dy;
  }
}

HD void runge_kutta_update(const Mesh& m, RungeKuttaStage rk, const Clock* clock, const double* u, const double* in,
                           const double* residual, double* out, int i, int j) {
  const size_t cell = at(m, i, j);
  for (int v = 0; v < kVars; ++v) {
    const size_t k = v * m.plane() + cell;
    out[k] = runge_kutta(rk, u[k], in[k], clock->dt, residual[k]);
  }
}

#ifndef _OPENACC  // nvcc's pass: the CPU and CUDA stages

// --- CPU: one OpenMP region around the whole time loop; each pass an `omp for` ------------------

void run_on_host(const Problem& p, double* q, double* work, Clock* clock, int steps, bool threads) {
  const Mesh& m = p.mesh;
  const Gas& g = p.gas;
  const Work w = work_planes(m, work);
#pragma omp parallel if (threads)
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

void run_ref(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  run_on_host(p, q, work, clock, steps, false);
}
void run_cpu0(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  run_on_host(p, q, work, clock, steps, true);
}

// --- GPU: one kernel per pass, a thread per cell ------------------------------------------------

__global__ void convective_flux_x_kernel(Mesh m, Gas g, const double* in, double* flux) {
  int i, j;
  if (thread_cell(m, i, j)) convective_flux_x(m, g, in, flux, i, j);
}
__global__ void convective_flux_y_kernel(Mesh m, Gas g, const double* in, double* flux) {
  int i, j;
  if (thread_cell(m, i, j)) convective_flux_y(m, g, in, flux, i, j);
}
__global__ void convective_integral_kernel(Mesh m, const double* flux_x, const double* flux_y, double* residual) {
  int i, j;
  if (thread_cell(m, i, j)) convective_integral(m, flux_x, flux_y, residual, i, j);
}
__global__ void local_viscosity_kernel(Mesh m, Gas g, const double* in, double* mu) {
  int i, j;
  if (thread_cell(m, i, j)) local_viscosity(m, g, in, mu, i, j);
}
__global__ void viscous_flux_x_kernel(Mesh m, Gas g, const double* in, const double* mu, double* flux) {
  int i, j;
  if (thread_cell(m, i, j)) viscous_flux_x(m, g, in, mu, flux, i, j);
}
__global__ void viscous_flux_y_kernel(Mesh m, Gas g, const double* in, const double* mu, double* flux) {
  int i, j;
  if (thread_cell(m, i, j)) viscous_flux_y(m, g, in, mu, flux, i, j);
}
__global__ void viscous_integral_kernel(Mesh m, const double* flux_x, const double* flux_y, double* residual) {
  int i, j;
  if (thread_cell(m, i, j)) viscous_integral(m, flux_x, flux_y, residual, i, j);
}
__global__ void runge_kutta_kernel(Mesh m, RungeKuttaStage rk, const Clock* clock, const double* u, const double* in,
                                   const double* residual, double* out) {
  int i, j;
  if (thread_cell(m, i, j)) runge_kutta_update(m, rk, clock, u, in, residual, out, i, j);
}

void run_gpu0(const Problem& p, double* q, double* work, Clock* clock, int steps) {
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

// --- OpenACC: a data region around the time loop; each pass one compute region -----------------
// The state and the clock go to the GPU once per run and come back at its end (copy), the
// workspace lives only there (create); host_data hands the regions the arrays' GPU addresses. A
// pass is a parallel loop: rows over gangs, a row's cells over vector lanes (acc_for_each_cell).
void run_acc0(const Problem& p, double* q, double* work, Clock* clock, int steps) {
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
const FourStepsCode four_steps_ref{run_ref, kWorkPlanes};
const FourStepsCode four_steps_cpu0{run_cpu0, kWorkPlanes};
const FourStepsCode four_steps_gpu0{run_gpu0, kWorkPlanes};
#else
const FourStepsCode four_steps_acc0{run_acc0, kWorkPlanes};
#endif
