// Chapter 03-poisson: -laplace(u) = f on [-1, 1]^2 by Jacobi iterations, double precision.
// N interior points per side, h = 2 / (N + 1); the field is stored with its boundary, as
// (N + 2) x (N + 2) values, row-major, row 0 at y = -1. One Jacobi iteration:
//   u_new(i, j) = 1/4 (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1) + h^2 f(i, j))
// on interior points; boundary values never change.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "check.h"
#include "device.h"
#include "stages.h"
#include "validate.h"

using tut::blocks_for;

struct PoissonGrid {
  int N;
  int width() const { return N + 2; }
  size_t cells() const { return size_t(N + 2) * (N + 2); }
  double h() const { return 2.0 / (N + 1); }
  // For comparisons: the field with its boundary, row by row; a position reads "(row=3, column=5)".
  tut::Extent3 extent() const { return {size_t(width()), size_t(width()), 1, {"column", "row", ""}}; }
};

struct PoissonProblem {
  PoissonGrid grid;
  std::vector<double> f;   // source, (N + 2)^2, only interior values are used
  std::vector<double> u0;  // initial field: boundary values and the initial interior
};

// The course's radiator: walls at 20 except y = -1 at 0; f = 200 on the box
// x in [0, 1/3], y in [-2/3, -1/3], 0 elsewhere. Interior initial values: 0, or uniform random
// in [0, 20) from `seed` when it is not 0 (so that tests see every point move).
PoissonProblem radiator_problem(int N, uint64_t seed = 0);
// u = sin(pi x) sin(pi y), f = 2 pi^2 u, boundary 0: a problem whose exact solution is known.
PoissonProblem manufactured_problem(int N);
double manufactured_solution(double x, double y);

struct SolveOptions {
  int max_iterations = 1000;
  double tolerance = 0;  // > 0: stop once ||u_new - u||_2 < tolerance, checked every check_every
  int check_every = 100;
  int parts = 1;         // multi-GPU stages: row blocks, spread over the visible GPUs
  int depth = 0;         // gpu4, gpu5: iterations per pass, or between trades of edges (0: the stage's own)
};

struct SolveResult {
  int iterations = 0;
  double change_norm = -1;  // ||u_new - u||_2 at the last check (-1: never checked)
  double seconds = 0;       // the iteration loop only: no allocation, no transfers
  std::string layout;       // how the stage cut the field, where it chooses (gpu5); printed by jacobi
};

// Every stage: iterate from u (host, (N + 2)^2 with its boundary) and leave the result in u.
using PoissonSolve = SolveResult (*)(const PoissonProblem& problem, std::vector<double>& u, const SolveOptions& options);

// What a stage's file hands over, as `const PoissonCode poisson_<stage>`. The stages that fuse
// iterations (gpu4, gpu5) also hand over their default depth at size N, and their solve at a
// depth (2, 4, 8 or 16; their `solve` takes SolveOptions::depth, 0 for the default).
struct PoissonCode {
  PoissonSolve solve;
  int (*default_depth)(int N) = nullptr;
  PoissonSolve (*at_depth)(int depth) = nullptr;
  // The solve to call at `depth` (0: the stage's own depth at size N; a stage without depths
  // has its one solve): jacobi's main calls it directly, and a fused stage's `solve` goes through it.
  PoissonSolve solve_for(int depth, int N) const {
    return at_depth ? at_depth(depth ? depth : default_depth(N)) : solve;
  }
};

// A fused stage's `solve`: its solve at SolveOptions::depth, or at its own depth for the size.
template <int (*own_depth)(int N), PoissonSolve (*at_depth)(int depth)>
SolveResult solve_at_chosen_depth(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  return PoissonCode{nullptr, own_depth, at_depth}.solve_for(o.depth, p.grid.N)(p, u, o);
}

struct PoissonStage : tut::StageInfo {
  PoissonCode code;
  bool multi_gpu() const { return side == tut::Side::multigpu; }  // row blocks over the GPUs
};

#define STAGE(name, ...) extern const PoissonCode poisson_##name;
#include "poisson.stages"
#undef STAGE

// Every stage, in the list's order.
const std::vector<const PoissonStage*>& poisson_stages();

// The norm of the change ||u_new - u||_2 over the interior: on the host, and by a device
// reduction (one double comes back, not the grid).
double host_change_norm(const PoissonGrid& g, const double* a, const double* b);
double device_change_norm(const PoissonGrid& g, const double* a, const double* b, cudaStream_t stream);

// The adapters for the stages that leave the iteration loop to the chapter: a stage that does
// one iteration on the host hands over iterate_on_host<step>, one that does `count` on the GPU
// iterate_on_device<advance>; both are PoissonSolves. The loop ping-pongs between two fields,
// checks the tolerance every check_every iterations, and times the loop only.
using HostStep = void (*)(const PoissonGrid& g, const double* f, const double* in, double* out);
// advance(g, f, cur, next, count, stream) does `count` iterations from cur, swapping cur and next
// after each, so that cur holds the newest field and next the one before it. A stage that plans
// once per solve (gpu5) passes its plan to iterate_on_device, which adds it to every call.

template <HostStep step>
SolveResult iterate_on_host(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  std::vector<double> next = u;  // the boundary is in both fields and never written
  SolveResult result;
  const auto start = std::chrono::steady_clock::now();
  while (result.iterations < o.max_iterations) {
    step(p.grid, p.f.data(), u.data(), next.data());
    u.swap(next);
    ++result.iterations;
    if (o.tolerance > 0 && result.iterations % o.check_every == 0) {
      result.change_norm = host_change_norm(p.grid, u.data(), next.data());
      if (result.change_norm < o.tolerance) break;
    }
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

template <auto advance, class... Plan>
SolveResult iterate_on_device(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o,
                              const Plan&... plan) {
  tut::DeviceBuffer<double> a(u.size()), b(u.size()), f(p.f.size());
  a.upload(u.data());
  b.upload(u.data());  // the boundary is in both fields and never written
  f.upload(p.f.data());
  const tut::Stream stream;
  double *cur = a.get(), *next = b.get();
  SolveResult result;
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto start = std::chrono::steady_clock::now();
  while (result.iterations < o.max_iterations) {
    const int left = o.max_iterations - result.iterations;
    const int count = o.tolerance > 0 ? std::min(o.check_every, left) : left;
    advance(p.grid, f.get(), cur, next, count, stream, plan...);
    result.iterations += count;
    if (o.tolerance > 0) {
      result.change_norm = device_change_norm(p.grid, cur, next, stream);
      if (result.change_norm < o.tolerance) break;
    }
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CUDA_CHECK(cudaMemcpy(u.data(), cur, u.size() * sizeof(double), cudaMemcpyDeviceToHost));
  return result;
}

// A fused stage's solve at depth 2, 4, 8 or 16, among its solves of each depth.
template <PoissonSolve at2, PoissonSolve at4, PoissonSolve at8, PoissonSolve at16>
PoissonSolve solve_at_depth(const char* stage, int depth) {
  switch (depth) {
    case 2: return at2;
    case 4: return at4;
    case 8: return at8;
    case 16: return at16;
  }
  throw tut::UsageError(std::string(stage) + ": --depth must be 2, 4, 8 or 16, got " + std::to_string(depth));
}
