// Chapter 05-four-steps: Yee's isentropic vortex in the 2D compressible Navier-Stokes equations,
// on a doubly periodic Cartesian mesh, double precision.
//   space: second-order finite volumes: linear (MUSCL, centred slope) reconstruction, Rusanov
//          convective flux, centred viscous fluxes, Sutherland's viscosity;
//   time:  third-order SSP (TVD) Runge-Kutta, the step from a CFL condition computed every step.
// The state is four planes (rho, rho u, rho v, E), each ny rows of `pitch` doubles of which the
// first nx are cells: q[v * plane + j * pitch + i]. Every stage runs the same scheme; they differ
// in how the work is split into loops or kernels and how memory is used (the chapter's lesson).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "device.h"
#include "stages.h"
#include "validate.h"

using tut::blocks_for;

constexpr int kVars = 4;  // rho, rho u, rho v, E
// The least DRAM traffic of a time step, per cell: each of the three Runge-Kutta stages reads the
// state it starts from and writes the next (4 doubles each way), and the last two also read the
// step's start state: 64 + 96 + 96 bytes. At the copy bandwidth this is the GPU stages' ceiling.
constexpr double kLeastBytesPerCellUpdate = 256;

struct Mesh {
  int nx, ny, pitch;  // cells per row and column; doubles per row in memory (>= nx)
  double dx, dy, inv_dx, inv_dy;
  __host__ __device__ size_t plane() const { return size_t(ny) * pitch; }
  __host__ __device__ size_t cells() const { return size_t(nx) * ny; }
  // For comparisons: the cells of the four planes, without the padding.
  tut::Extent3 extent() const { return {size_t(nx), size_t(ny), kVars, {"i", "j", "variable"}}; }
};

// Non-dimensional gas: p = rho T (R = 1), heat conductivity mu cp / Pr.
struct Gas {
  double gamma = 1.4, prandtl = 0.72;
  double mu_ref = 0;                    // viscosity at T = 1 (0: the Euler equations)
  double sutherland = 110.4 / 288.15;   // Sutherland's constant over the reference temperature
  // Derived once (step 3 multiplies by them): cp / Pr, and max(4/3, gamma / Pr) for the step.
  // Set when a Gas is made: change gamma or prandtl through a new Gas, not afterwards.
  double conduction = gamma / ((gamma - 1) * prandtl);
  double diffusion = gamma / prandtl > 4.0 / 3.0 ? gamma / prandtl : 4.0 / 3.0;
};

struct Problem {
  Mesh mesh;
  Gas gas;
  double cfl = 0.5;
  double t_end = 1e300;  // the step is cut so that time never passes t_end (then dt = 0)
};

// Time, shared by the steps of a run: where the stages keep it (host or device memory).
struct Clock {
  double t = 0, dt = 0;
  unsigned long long rate_bits = 0;  // the largest stable-step rate of the cells, as the bits of a
                                     // non-negative double (which order like the double): atomicMax
};

// What a stage's file hands over, as `const FourStepsCode four_steps_<stage>`. run advances the
// state q by `steps` time steps, using `work` (work_planes planes of the mesh) and the clock;
// a CUDA stage gets device pointers and works on the default stream, a CPU stage host pointers,
// and so does an OpenACC stage, whose data region takes them to the GPU and back.
using FourStepsRun = void (*)(const Problem& p, double* q, double* work, Clock* clock, int steps);

// A variant of a stage that `vortex --variants` also times and the tests also check (gpu5's strip
// heights and register budgets).
struct FourStepsVariant {
  const char* name;
  FourStepsRun run;
};

struct FourStepsCode {
  FourStepsRun run;
  int work_planes;
  int row_align = 1;  // rows padded to a multiple of this many doubles
  const FourStepsVariant* variants = nullptr;  // the shapes it sweeps, its own among them
  int variant_count = 0;
};

struct FourStepsStage : tut::StageInfo {
  FourStepsCode code;
  // Its variant k as a stage of its own: the same stage under the variant's name and run.
  FourStepsStage variant(int k) const {
    FourStepsStage v = *this;
    v.name = code.variants[k].name;
    v.code.run = code.variants[k].run;
    return v;
  }
};

#define STAGE(name, ...) extern const FourStepsCode four_steps_##name;
#include "four_steps.stages"
#undef STAGE

// Why this program cannot run the acc stages (OpenACC), or "" when it can: a build without GCC's
// nvptx offloading (the stages are not compiled), or OpenACC finding no NVIDIA GPU.
std::string openacc_unavailable();
// Why this build has no MPI stage (cpu5), or "".
std::string mpi_unavailable();

const std::vector<const FourStepsStage*>& four_steps_stages();

// The mesh of nx x ny cells (at least 4 each: the reconstruction reaches two cells away) on the
// periodic square [0, 10)^2, rows padded to `row_align`.
Mesh make_mesh(int nx, int ny, int row_align = 1);

// Yee's vortex (strength 5, centred, free stream (1, 1), rho = p = T = 1 outside it) at time t:
// at t = 0 the initial state, later the exact solution of the Euler equations (the vortex
// carried by the free stream). `perturbation` > 0 adds a random relative change to every value
// (seeded), so that tests see every cell move differently. Values at cell centres, host planes.
std::vector<double> yee_vortex(const Mesh& m, double t = 0, double perturbation = 0, uint64_t seed = 1);

// Every stage against another on the same steps: |x - ref| <= atol + rtol |ref|. The stages
// do the same arithmetic in other orders (and step 3 with inverses), so after a few steps they
// differ by rounding; a wrong face, sign or stage buffer is orders of magnitude above.
constexpr tut::Tolerance kStageTolerance{1e-10, 1e-10};

// The sum of each conserved variable over the cells, times the cell area.
std::vector<double> conserved_totals(const Mesh& m, const double* q);

// The L1 norm (mean over cells) of rho - exact rho.
double density_error_l1(const Mesh& m, const double* q, const double* exact);

// The cells of q, without the row padding (plane by plane, row by row), for comparisons.
std::vector<double> cells_of(const Mesh& m, const double* q);

// A stage set up to run: the state, workspace and clock where the stage works (device memory for
// a CUDA stage), with rows padded as the stage asks. States go in and come out without padding.
class StageRun {
 public:
  StageRun(const FourStepsStage& stage, const Problem& problem);  // allocates; problem.mesh unpadded
  ~StageRun();
  StageRun(const StageRun&) = delete;
  StageRun& operator=(const StageRun&) = delete;
  // The state becomes q (nx x ny cells per plane), the clock 0; padding and workspace NaN, so
  // that a value read before it is written spoils the result.
  void reset(const std::vector<double>& q);
  void advance(int steps);  // a GPU stage's work is only enqueued: time it with events
  double time() const;      // the clock's t (waits for the GPU)
  std::vector<double> state() const;
  const Problem& problem() const { return problem_; }  // with the stage's padded mesh

 private:
  const FourStepsStage& stage_;
  Problem problem_;
  bool device_memory_;  // a CUDA stage's arrays are on the GPU
  double *q_ = nullptr, *work_ = nullptr;
  Clock* clock_ = nullptr;
};

// Runs a stage for `steps` time steps from q, leaves the result in q, returns the time reached.
double run_stage(const FourStepsStage& s, const Problem& p, std::vector<double>& q, int steps);
