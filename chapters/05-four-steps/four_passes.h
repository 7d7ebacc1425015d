// The drivers of steps 2 and 3 (step2_merge.cu, step3_factor.cu): the same four passes per
// Runge-Kutta stage, over the cell functions of the step's file, which hands them over as the
// static members of a struct (`Cells`) and its kernels as a MergedKernels. The passes: the local
// viscosity; the fluxes in x (convective minus viscous, one store per face); the same in y; the
// integral and the Runge-Kutta update of each cell. Step 3 changes the cells' arithmetic only.
#pragma once
#include "check.h"
#include "step_support.h"

// The workspace after the two Runge-Kutta states (kFourPassWorkPlanes of them in all): the total
// fluxes in x and in y, kVars planes each, and the local viscosity.
struct MergedWork {
  double *flux_x, *flux_y, *mu;
};
inline MergedWork merged_work(const Mesh& m, double* work) {
  double* w = work + kRungeKuttaPlanes * m.plane();
  return {w, w + kVars * m.plane(), w + 2 * kVars * m.plane()};
}

#ifndef _OPENACC  // nvcc's pass: the CPU and CUDA stages

// --- CPU: one OpenMP region around the whole time loop; each pass an `omp for` ------------------
template <class Cells>
void run_merged_on_host(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  const Mesh& m = p.mesh;
  const Gas& g = p.gas;
  const MergedWork w = merged_work(m, work);
#pragma omp parallel
  for (int n = 0; n < steps; ++n) {
    host_time_step(p, q, clock);
    for (int s = 0; s < 3; ++s) {
      const StageBuffers b = stage_buffers(m, q, work, s);
      const double dt = clock->dt;
      for_each_cell(m, [&](int i, int j) { Cells::local_viscosity(m, g, b.in, w.mu, i, j); });
      for_each_cell(m, [&](int i, int j) { Cells::fluxes_x(m, g, b.in, w.mu, w.flux_x, i, j); });
      for_each_cell(m, [&](int i, int j) { Cells::fluxes_y(m, g, b.in, w.mu, w.flux_y, i, j); });
      for_each_cell(m, [&](int i, int j) {
        Cells::integral_and_update(m, kRungeKutta[s], dt, q, b.in, w.flux_x, w.flux_y, b.out, i, j);
      });
    }
  }
}

// --- GPU: four kernels per Runge-Kutta stage, a thread per cell, on the default stream ----------
// A step's kernels, in the order of the passes.
struct MergedKernels {
  void (*local_viscosity)(Mesh, Gas, const double* in, double* mu);
  void (*fluxes_x)(Mesh, Gas, const double* in, const double* mu, double* flux);
  void (*fluxes_y)(Mesh, Gas, const double* in, const double* mu, double* flux);
  void (*integral_and_update)(Mesh, RungeKuttaStage, const Clock* clock, const double* u, const double* in,
                              const double* flux_x, const double* flux_y, double* out);
};

template <const MergedKernels& kernels>
void run_merged_kernels(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  const Mesh& m = p.mesh;
  const Gas& g = p.gas;
  const MergedWork w = merged_work(m, work);
  const dim3 grid = cell_grid(m);
  for (int n = 0; n < steps; ++n) {
    device_time_step(p, q, clock);
    for (int s = 0; s < 3; ++s) {
      const StageBuffers b = stage_buffers(m, q, work, s);
      kernels.local_viscosity<<<grid, kCellBlock>>>(m, g, b.in, w.mu);
      kernels.fluxes_x<<<grid, kCellBlock>>>(m, g, b.in, w.mu, w.flux_x);
      kernels.fluxes_y<<<grid, kCellBlock>>>(m, g, b.in, w.mu, w.flux_y);
      kernels.integral_and_update<<<grid, kCellBlock>>>(m, kRungeKutta[s], clock, q, b.in, w.flux_x, w.flux_y, b.out);
    }
  }
  CUDA_CHECK_LAUNCH();
}

#else  // GCC's OpenACC pass over a step's file: its acc stage

// --- OpenACC: four regions per Runge-Kutta stage; dt read on the GPU, as the kernels read it ----
// (in_data_region: see eight_passes.h.)
template <class Cells>
void merged_in_regions(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  const Mesh m = p.mesh;
  const Gas g = p.gas;
  const MergedWork w = merged_work(m, work);
  for (int n = 0; n < steps; ++n) {
    acc_time_step(p, q, clock);
    for (int s = 0; s < 3; ++s) {
      const StageBuffers b = stage_buffers(m, q, work, s);
      const RungeKuttaStage rk = kRungeKutta[s];
      acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { Cells::local_viscosity(m, g, b.in, w.mu, i, j); });
      acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { Cells::fluxes_x(m, g, b.in, w.mu, w.flux_x, i, j); });
      acc_for_each_cell(m, [=](int i, int j) ACC_INLINE { Cells::fluxes_y(m, g, b.in, w.mu, w.flux_y, i, j); });
      acc_for_each_cell(m, [=](int i, int j) ACC_INLINE {
        Cells::integral_and_update(m, rk, clock->dt, q, b.in, w.flux_x, w.flux_y, b.out, i, j);
      });
    }
  }
}

template <class Cells>
void run_merged_in_regions(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  in_data_region(p, q, work, kFourPassWorkPlanes, clock, steps, merged_in_regions<Cells>);
}
#endif
