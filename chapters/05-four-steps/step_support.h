// What every stage file of chapter 05-four-steps uses besides the physics: the time step (a
// reduction over the cells, on the host inside an OpenMP region or on the device), the buffers
// of the Runge-Kutta stages, and the grid of a cell-per-thread kernel.
#pragma once
#include "cell_physics.h"
#include "four_steps.h"

// The step for the next time step: dt = cfl / (the largest stable rate of the cells of q), cut
// so that t never passes t_end; then t += dt. On the host, called by every thread of an OpenMP
// team (the reduction is an orphaned `omp for`), or outside one by a single thread. The MPI
// stage reduces over its process's rows [j_begin, j_end) (default: all), then `across` the
// processes (called by the team's master thread).
void host_time_step(const Problem& p, const double* q, Clock* clock, int j_begin = 0, int j_end = -1,
                    double (*across)(double) = nullptr);
// The same on the device (two kernels: the reduction, then one thread sets dt and t).
void device_time_step(const Problem& p, const double* q, Clock* clock);
// Its second kernel alone, for a stage whose last Runge-Kutta kernel folds the new state's
// stable rates into clock->rate_bits itself (gpu5).
void device_step_from_rate(const Problem& p, Clock* clock);

// A Runge-Kutta stage reads `in` and writes `out`; stage 0 starts from the state q itself and
// stage 2 ends in it (it reads q only at the cell it writes, so in place is safe). The two
// intermediate states take the first 2 kVars planes of the workspace.
constexpr int kRungeKuttaPlanes = 2 * kVars;
struct StageBuffers {
  const double* in;
  double* out;
};
inline StageBuffers stage_buffers(const Mesh& m, double* q, double* work, int stage) {
  double* first = work;
  double* second = work + kVars * m.plane();
  const double* in[3] = {q, first, second};
  double* out[3] = {first, second, q};
  return {in[stage], out[stage]};
}

// A cell's values and a cell's place in a plane set.
HD size_t at(const Mesh& m, int i, int j) { return size_t(j) * m.pitch + i; }
HD Cons load_cell(const Mesh& m, const double* q, size_t cell) {
  const size_t plane = m.plane();
  return {q[cell], q[plane + cell], q[2 * plane + cell], q[3 * plane + cell]};
}
HD void store_cell(const Mesh& m, double* q, size_t cell, const Cons& c) {
  const size_t plane = m.plane();
  q[cell] = c.rho;
  q[plane + cell] = c.mx;
  q[2 * plane + cell] = c.my;
  q[3 * plane + cell] = c.e;
}

#ifdef __CUDACC__
// Threads in 2D blocks over the cells (or faces: one per cell on a periodic mesh): a block of
// 32 x 4, each block one part of the mesh, each warp 32 cells of a row.
const dim3 kCellBlock(32, 4);
inline dim3 cell_grid(const Mesh& m) { return dim3(blocks_for(m.nx, kCellBlock.x), blocks_for(m.ny, kCellBlock.y)); }
#endif

#ifndef _OPENACC  // (GCC's OpenACC pass compiles without OpenMP)
// The CPU side of the ONERA protocol: what a kernel does for its thread's cell (i, j), an OpenMP
// loop does for every cell: rows shared among the threads of the calling team (outside a
// parallel region, all rows by the one thread), the cells of a row as SIMD lanes.
template <class Body>
void for_each_cell(const Mesh& m, Body body) {
#pragma omp for
  for (int j = 0; j < m.ny; ++j)
#pragma omp simd
    for (int i = 0; i < m.nx; ++i) body(i, j);
}
#endif

#ifdef __CUDACC__
// The GPU side: the thread's cell (i, j), or false for a thread past the mesh's edge.
__device__ __forceinline__ bool thread_cell(const Mesh& m, int& i, int& j) {
  i = blockIdx.x * blockDim.x + threadIdx.x;
  j = blockIdx.y * blockDim.y + threadIdx.y;
  return i < m.nx && j < m.ny;
}
#endif

#ifdef _OPENACC
// The OpenACC side (GCC compiles each step file a second time, as C++ with -fopenacc, for its
// acc stage): the same body for every cell, in one compute region on the GPU, rows over gangs,
// the cells of a row over a gang's vector lanes. The arrays are device memory already (the
// stage gets cudaMalloc'ed pointers, as a CUDA stage does), so there is nothing to copy: the body
// captures them by value, and the region takes a private copy of the body (firstprivate).
// The body, a lambda, must be compiled for the GPU too: inlined into the region, it is; so its
// lambdas say ACC_INLINE ([=](int i, int j) ACC_INLINE { ... }).
#define ACC_INLINE __attribute__((always_inline))
template <class Body>
void acc_for_each_cell(const Mesh& m, Body body) {
  const int nx = m.nx, ny = m.ny;
#pragma acc parallel loop gang firstprivate(body)
  for (int j = 0; j < ny; ++j) {
#pragma acc loop vector
    for (int i = 0; i < nx; ++i) body(i, j);
  }
}
// The time step: the largest rate as an OpenACC max reduction (its result comes back to the
// host), then dt and t set in the clock on the GPU by a region of one gang. q and clock are
// device addresses (inside the stage's host_data region).
void acc_time_step(const Problem& p, const double* q, Clock* clock);
// A data region around `passes`: the state q and the clock copied to the GPU and back, the
// workspace (work_planes planes) created there; `passes` gets their GPU addresses (host_data).
void in_data_region(const Problem& p, double* q, double* work, int work_planes, Clock* clock, int steps,
                    FourStepsRun passes);
#endif

// Step 4's CPU tiles (step4_align.cu), which the MPI stage runs on its process's rows: one
// Runge-Kutta stage on rows [j_begin, j_end), the tiles shared among the threads of the calling
// OpenMP team (an orphaned `omp for`, with its barrier at the end).
void tiled_stage(const Problem& p, RungeKuttaStage rk, double dt, const double* u, const double* in, double* out,
                 int j_begin, int j_end);

// The MPI stage's time loop (step5_mpi.cpp): tiled_stage on each process's row block, halos
// exchanged after each Runge-Kutta stage, the time step's largest rate combined `across` the
// processes (the tests' wrong stage leaves that out).
void run_row_blocks(const Problem& p, double* q, double* work, Clock* clock, int steps, double (*across)(double));

// The planes of workspace of steps 2 to 4's four passes (four_passes.h): the Runge-Kutta states,
// the fluxes in x and in y, the local viscosity.
constexpr int kFourPassWorkPlanes = kRungeKuttaPlanes + 2 * kVars + 1;
