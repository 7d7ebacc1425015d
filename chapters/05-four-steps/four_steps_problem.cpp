// The vortex, the mesh, the checks on a state, and running a stage.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "check.h"
#include "four_steps.h"
#include "random_inputs.h"

namespace {

constexpr double kSide = 10, kStrength = 5, kPi = 3.14159265358979323846;

}  // namespace

Mesh make_mesh(int nx, int ny, int row_align) {
  if (nx < 4 || ny < 4) throw std::invalid_argument("make_mesh: at least 4 x 4 cells, got " + std::to_string(nx) + " x " + std::to_string(ny));
  Mesh m;
  m.nx = nx;
  m.ny = ny;
  m.pitch = (nx + row_align - 1) / row_align * row_align;
  m.dx = kSide / nx;
  m.dy = kSide / ny;
  m.inv_dx = 1 / m.dx;
  m.inv_dy = 1 / m.dy;
  return m;
}

std::vector<double> yee_vortex(const Mesh& m, double t, double perturbation, uint64_t seed) {
  const Gas g;
  std::vector<double> q(kVars * m.plane(), 0.0), noise(kVars * m.plane(), 0.0);
  if (perturbation > 0) tut::fill_random(noise.data(), noise.size(), seed, -perturbation, perturbation);
  // The centre, carried by the free stream (1, 1) and wrapped.
  const double cx = std::fmod(kSide / 2 + t, kSide), cy = std::fmod(kSide / 2 + t, kSide);
  for (int j = 0; j < m.ny; ++j)
    for (int i = 0; i < m.nx; ++i) {
      // The cell's offset from the centre, to the nearest periodic image.
      double x = (i + 0.5) * m.dx - cx, y = (j + 0.5) * m.dy - cy;
      x -= kSide * std::round(x / kSide);
      y -= kSide * std::round(y / kSide);
      const double bump = std::exp(0.5 * (1 - x * x - y * y));
      const double u = 1 - kStrength / (2 * kPi) * bump * y, v = 1 + kStrength / (2 * kPi) * bump * x;
      const double T = 1 - (g.gamma - 1) * kStrength * kStrength / (8 * g.gamma * kPi * kPi) * bump * bump;
      const double rho = std::pow(T, 1 / (g.gamma - 1)), p = rho * T;
      const double values[kVars] = {rho, rho * u, rho * v, p / (g.gamma - 1) + 0.5 * rho * (u * u + v * v)};
      for (int v_index = 0; v_index < kVars; ++v_index) {
        const size_t k = v_index * m.plane() + size_t(j) * m.pitch + i;
        q[k] = values[v_index] * (1 + noise[k]);
      }
    }
  return q;
}

std::vector<double> conserved_totals(const Mesh& m, const double* q) {
  std::vector<double> totals(kVars, 0.0);
  for (int v = 0; v < kVars; ++v)
    for (int j = 0; j < m.ny; ++j)
      for (int i = 0; i < m.nx; ++i) totals[v] += q[v * m.plane() + size_t(j) * m.pitch + i] * m.dx * m.dy;
  return totals;
}

double density_error_l1(const Mesh& m, const double* q, const double* exact) {
  double sum = 0;
  for (int j = 0; j < m.ny; ++j)
    for (int i = 0; i < m.nx; ++i) sum += std::fabs(q[size_t(j) * m.pitch + i] - exact[size_t(j) * m.pitch + i]);
  return sum / double(m.cells());
}

std::vector<double> cells_of(const Mesh& m, const double* q) {
  std::vector<double> cells;
  cells.reserve(kVars * m.cells());
  for (int v = 0; v < kVars; ++v)
    for (int j = 0; j < m.ny; ++j)
      for (int i = 0; i < m.nx; ++i) cells.push_back(q[v * m.plane() + size_t(j) * m.pitch + i]);
  return cells;
}

StageRun::StageRun(const FourStepsStage& stage, const Problem& problem)
    : stage_(stage), problem_(problem), device_memory_(stage.side == tut::Side::gpu) {
  if (!stage.code.run)
    throw tut::UsageError(std::string("stage ") + stage.name + " cannot run: " +
                          (stage.side == tut::Side::mpi ? mpi_unavailable() : openacc_unavailable()));
  if (stage.code.row_align < 1)
    throw std::logic_error(std::string("stage ") + stage.name + " pads its rows to a multiple of " +
                           std::to_string(stage.code.row_align) + " doubles -> edit " + stage.source);
  problem_.mesh = make_mesh(problem.mesh.nx, problem.mesh.ny, stage.code.row_align);
  const size_t state = kVars * problem_.mesh.plane(), work = stage.code.work_planes * problem_.mesh.plane();
  if (device_memory_) {
    tut::require_device_memory((state + work) * sizeof(double), "the state and the stage's workspace");
    CUDA_CHECK(cudaMalloc(&q_, state * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&work_, work * sizeof(double)));
    CUDA_CHECK(cudaMalloc(&clock_, sizeof(Clock)));
  } else {
    tut::require_host_memory((state + work) * sizeof(double), "the state and the stage's workspace");
    q_ = new double[state];
    work_ = new double[work];
    clock_ = new Clock;
  }
}

StageRun::~StageRun() {
  if (device_memory_) {
    cudaFree(q_);
    cudaFree(work_);
    cudaFree(clock_);
  } else {
    delete[] q_;
    delete[] work_;
    delete clock_;
  }
}

void StageRun::reset(const std::vector<double>& q) {
  const Mesh& m = problem_.mesh;
  if (q.size() != kVars * m.cells()) throw std::invalid_argument("StageRun::reset: a state of the wrong size");
  std::vector<double> padded(kVars * m.plane(), std::numeric_limits<double>::quiet_NaN());
  for (int v = 0; v < kVars; ++v)
    for (int j = 0; j < m.ny; ++j)
      for (int i = 0; i < m.nx; ++i) padded[v * m.plane() + size_t(j) * m.pitch + i] = q[(size_t(v) * m.ny + j) * m.nx + i];
  const size_t work = stage_.code.work_planes * m.plane();
  const Clock start;
  if (device_memory_) {
    CUDA_CHECK(cudaMemcpy(q_, padded.data(), padded.size() * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(work_, 0xff, work * sizeof(double)));  // all bits set: a NaN
    CUDA_CHECK(cudaMemcpy(clock_, &start, sizeof start, cudaMemcpyHostToDevice));
  } else {
    std::copy(padded.begin(), padded.end(), q_);
    tut::poison(work_, work);
    *clock_ = start;
  }
}

void StageRun::advance(int steps) { stage_.code.run(problem_, q_, work_, clock_, steps); }

double StageRun::time() const {
  Clock c;
  if (device_memory_)
    CUDA_CHECK(cudaMemcpy(&c, clock_, sizeof c, cudaMemcpyDeviceToHost));
  else
    c = *clock_;
  return c.t;
}

std::vector<double> StageRun::state() const {
  const Mesh& m = problem_.mesh;
  std::vector<double> padded(kVars * m.plane());
  if (device_memory_)
    CUDA_CHECK(cudaMemcpy(padded.data(), q_, padded.size() * sizeof(double), cudaMemcpyDeviceToHost));
  else
    std::copy(q_, q_ + padded.size(), padded.begin());
  return cells_of(m, padded.data());
}

double run_stage(const FourStepsStage& s, const Problem& p, std::vector<double>& q, int steps) {
  StageRun run(s, p);
  run.reset(q);
  run.advance(steps);
  q = run.state();
  return run.time();
}
