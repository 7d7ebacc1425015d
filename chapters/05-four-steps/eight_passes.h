// The drivers of steps 0 and 1 (step0_adapt.cu, step1_registers.cu): the same eight passes per
// Runge-Kutta stage, over the cell functions of the step's file, which hands them over as the
// static members of a struct (`Cells`) and its kernels as a PassKernels. Each Runge-Kutta stage
// is eight operations, each a pass over the mesh, as the ONERA code lists them: convective
// fluxes in x, in y, their integral; local viscosity; viscous fluxes in x, in y, their integral;
// the Runge-Kutta update.
#pragma once
#include "check.h"
#include "step_support.h"

// The workspace after the two Runge-Kutta states: fluxes and residual, kVars planes each, and
// the local viscosity.
struct Work {
  double *convective_x, *convective_y, *residual, *mu, *viscous_x, *viscous_y;
};
constexpr int kWorkPlanes = kRungeKuttaPlanes + 5 * kVars + 1;
inline Work work_planes(const Mesh& m, double* work) {
  double* w = work + kRungeKuttaPlanes * m.plane();
  const size_t set = kVars * m.plane();
  return {w, w + set, w + 2 * set, w + 3 * set, w + 3 * set + m.plane(), w + 4 * set + m.plane()};
}

#ifndef _OPENACC  // nvcc's pass: the CPU and CUDA stages

// --- CPU: one OpenMP region around the whole time loop; each pass an `omp for` ------------------
// (THREADS false: the region runs on one thread, ref's one core.)
template <class Cells, bool THREADS = true>
void run_passes_on_host(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  const Mesh& m = p.mesh;
  const Gas& g = p.gas;
#pragma omp parallel if (THREADS)
  for (int n = 0; n < steps; ++n) {
    host_time_step(p, q, clock);
    const Work w = work_planes(m, work);
    for (int s = 0; s < 3; ++s) {
      const StageBuffers b = stage_buffers(m, q, work, s);
      for_each_cell(m, [&](int i, int j) { Cells::convective_flux_x(m, g, b.in, w.convective_x, i, j); });
      for_each_cell(m, [&](int i, int j) { Cells::convective_flux_y(m, g, b.in, w.convective_y, i, j); });
      for_each_cell(m, [&](int i, int j) { Cells::convective_integral(m, w.convective_x, w.convective_y, w.residual, i, j); });
      for_each_cell(m, [&](int i, int j) { Cells::local_viscosity(m, g, b.in, w.mu, i, j); });
      for_each_cell(m, [&](int i, int j) { Cells::viscous_flux_x(m, g, b.in, w.mu, w.viscous_x, i, j); });
      for_each_cell(m, [&](int i, int j) { Cells::viscous_flux_y(m, g, b.in, w.mu, w.viscous_y, i, j); });
      for_each_cell(m, [&](int i, int j) { Cells::viscous_integral(m, w.viscous_x, w.viscous_y, w.residual, i, j); });
      for_each_cell(m, [&](int i, int j) {
        Cells::runge_kutta_update(m, kRungeKutta[s], clock, q, b.in, w.residual, b.out, i, j);
      });
    }
  }
}

// --- GPU: one kernel per pass, a thread per cell, launched on the default stream ---------------
// A step's kernels, in the order of the passes.
struct PassKernels {
  void (*convective_flux_x)(Mesh, Gas, const double* in, double* flux);
  void (*convective_flux_y)(Mesh, Gas, const double* in, double* flux);
  void (*convective_integral)(Mesh, const double* flux_x, const double* flux_y, double* residual);
  void (*local_viscosity)(Mesh, Gas, const double* in, double* mu);
  void (*viscous_flux_x)(Mesh, Gas, const double* in, const double* mu, double* flux);
  void (*viscous_flux_y)(Mesh, Gas, const double* in, const double* mu, double* flux);
  void (*viscous_integral)(Mesh, const double* flux_x, const double* flux_y, double* residual);
  void (*runge_kutta)(Mesh, RungeKuttaStage, const Clock* clock, const double* u, const double* in,
                      const double* residual, double* out);
};

template <const PassKernels& kernels>
void run_pass_kernels(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  const Mesh& m = p.mesh;
  const Gas& g = p.gas;
  const Work w = work_planes(m, work);
  const dim3 grid = cell_grid(m);
  for (int n = 0; n < steps; ++n) {
    device_time_step(p, q, clock);
    for (int s = 0; s < 3; ++s) {
      const StageBuffers b = stage_buffers(m, q, work, s);
      kernels.convective_flux_x<<<grid, kCellBlock>>>(m, g, b.in, w.convective_x);
      kernels.convective_flux_y<<<grid, kCellBlock>>>(m, g, b.in, w.convective_y);
      kernels.convective_integral<<<grid, kCellBlock>>>(m, w.convective_x, w.convective_y, w.residual);
      kernels.local_viscosity<<<grid, kCellBlock>>>(m, g, b.in, w.mu);
      kernels.viscous_flux_x<<<grid, kCellBlock>>>(m, g, b.in, w.mu, w.viscous_x);
      kernels.viscous_flux_y<<<grid, kCellBlock>>>(m, g, b.in, w.mu, w.viscous_y);
      kernels.viscous_integral<<<grid, kCellBlock>>>(m, w.viscous_x, w.viscous_y, w.residual);
      kernels.runge_kutta<<<grid, kCellBlock>>>(m, kRungeKutta[s], clock, q, b.in, w.residual, b.out);
    }
  }
  CUDA_CHECK_LAUNCH();
}

#else  // GCC's OpenACC pass over a step's file: its acc stage

// --- OpenACC: a data region around the time loop; each pass one compute region -----------------
// in_data_region (four_steps_acc.cpp) puts the state, the clock and the workspace on the GPU
// and hands over their GPU addresses. (Not here: GCC 12 drops the body of a host_data region
// inside a function template.) A pass is a parallel loop: rows over gangs, a row's cells over
// vector lanes (acc_for_each_cell).
template <class Cells>
void passes_in_regions(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  const Mesh m = p.mesh;
  const Gas g = p.gas;
  const Work w = work_planes(m, work);
  for (int n = 0; n < steps; ++n) {
    acc_time_step(p, q, clock);
    for (int s = 0; s < 3; ++s) {
      const StageBuffers b = stage_buffers(m, q, work, s);
      const RungeKuttaStage rk = kRungeKutta[s];
      acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { Cells::convective_flux_x(m, g, b.in, w.convective_x, i, j); });
      acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { Cells::convective_flux_y(m, g, b.in, w.convective_y, i, j); });
      acc_for_each_cell(m, [=](int i, int j) ACC_INLINE {
        Cells::convective_integral(m, w.convective_x, w.convective_y, w.residual, i, j);
      });
      acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { Cells::local_viscosity(m, g, b.in, w.mu, i, j); });
      acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { Cells::viscous_flux_x(m, g, b.in, w.mu, w.viscous_x, i, j); });
      acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { Cells::viscous_flux_y(m, g, b.in, w.mu, w.viscous_y, i, j); });
      acc_for_each_cell(m, [=](int i, int j) ACC_INLINE {
        Cells::viscous_integral(m, w.viscous_x, w.viscous_y, w.residual, i, j);
      });
      acc_for_each_cell(m, [=](int i, int j) ACC_INLINE {
        Cells::runge_kutta_update(m, rk, clock, q, b.in, w.residual, b.out, i, j);
      });
    }
  }
}

template <class Cells>
void run_passes_in_regions(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  in_data_region(p, q, work, kWorkPlanes, clock, steps, passes_in_regions<Cells>);
}
#endif
