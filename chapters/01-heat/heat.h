// Chapter 01-heat: 3D heat diffusion by an explicit 7-point stencil, float.
// One step maps a field `in` to `out`:
//   out = in + coeff * (sum of the 6 neighbours - 6 in),  coeff = lam dt / dx^2,
// with dx = dy = dz = 1, lam = 1 and dt = dx^2 / (6.1 lam), on interior cells only: the
// boundary cells of `out` keep their values (the caller makes them equal to `in`'s; a stage
// that stores whole float4s may write a boundary cell, with the value it already has).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "check.h"
#include "device.h"
#include "stages.h"

using tut::blocks_for;  // the stages size their grids with it

struct HeatGrid {
  int nx, ny, nz;  // x is the fastest axis: cell (i, j, k) is at (k * ny + j) * nx + i
  size_t cells() const { return size_t(nx) * ny * nz; }
  size_t interior_cells() const {
    auto inner = [](int n) { return n > 2 ? size_t(n - 2) : 0; };
    return inner(nx) * inner(ny) * inner(nz);
  }
};

// How many planes one column of threads marches through (v5): all of z when the x-y tiles
// alone give the GPU enough blocks (a full H200 holds about a thousand blocks of 256 threads),
// else shorter columns, but never below `min_planes`, since every column first loads the planes
// its first update needs (the cost a short column pays again and again).
inline int planes_per_column(int interior_z, unsigned xy_tiles, int min_planes) {
  constexpr unsigned kEnoughBlocks = 1024;
  const int wanted = int((kEnoughBlocks + xy_tiles - 1) / xy_tiles);
  const int most = interior_z / min_planes > 1 ? interior_z / min_planes : 1;
  const int columns = wanted < most ? wanted : most;
  return (interior_z + columns - 1) / columns;
}

// Lets `kernel` ask for the most shared memory a block may have (past 48 KiB it must be asked
// for); returns that many bytes.
template <class Kernel>
int allow_most_shared_memory(Kernel kernel) {
  int device = 0, bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  return bytes;
}

using tut::resident_blocks;  // what a cooperative launch (v6, v8) may ask for

constexpr float kHeatCoeff = 1.0f / 6.1f;  // lam dt / dx^2 with the blog post's constants

// The one handover of every stage: `steps` steps from the field in `a` (`b` holds the same
// boundary), host pointers for a CPU stage, device pointers for a GPU stage, which enqueues its
// work on `stream` in blocks of `block` threads; returns whichever of a and b holds the result.
using HeatRun = float* (*)(const HeatGrid& grid, float coeff, float* a, float* b, int steps, dim3 block,
                           cudaStream_t stream);

// The adapter for a stage that does one step: steps_of<step> is its HeatRun. `step` maps `in`
// to `out`: (grid, coeff, in, out) on the CPU, (grid, coeff, in, out, block, stream) on the GPU.
template <auto step>
float* steps_of(const HeatGrid& grid, float coeff, float* a, float* b, int steps, dim3 block, cudaStream_t stream) {
  for (int s = 0; s < steps; ++s) {
    if constexpr (std::is_invocable_v<decltype(step), const HeatGrid&, float, const float*, float*>)
      step(grid, coeff, a, b);
    else
      step(grid, coeff, a, b, block, stream);
    std::swap(a, b);
  }
  return a;
}

// The blocks a GPU stage can run in, beyond CUDA's own limits: heat3d's --block must respect them.
struct BlockLimits {
  unsigned most_threads = 1024;  // a kernel that keeps much in registers is compiled for fewer
};

// A variant that a stage sweeps (v5's loads in flight, v7's alternatives): timed by heat3d
// when named in --stage, and checked by the stage's tests like the stage itself.
struct HeatVariant {
  const char* name;  // "v5_ahead2"
  const char* idea;
  HeatRun run;
  BlockLimits limits{};
  dim3 block{0, 0, 0};  // its own block shape; 0: the stage's
};

// What a stage's file hands over, as `const HeatCode heat_<stage>`: its run, its block shape
// (none on the CPU), the smallest block it can work in, and the variants it sweeps.
struct HeatCode {
  constexpr HeatCode(HeatRun run_, dim3 shape = {0, 0, 0}, BlockLimits fits = {}) : run(run_), block(shape), limits(fits) {}
  template <size_t N>
  constexpr HeatCode(HeatRun run_, dim3 shape, BlockLimits fits, const HeatVariant (&sweep)[N])
      : run(run_), block(shape), limits(fits), variants(sweep), variant_count(int(N)) {}
  HeatRun run;
  dim3 block;
  BlockLimits limits;
  const HeatVariant* variants = nullptr;
  int variant_count = 0;
};

// "64x8x1": a block shape as --block and heat.stages write it.
inline std::string shape_text(dim3 b) {
  return std::to_string(b.x) + "x" + std::to_string(b.y) + "x" + std::to_string(b.z);
}

struct HeatStage : tut::StageInfo {
  HeatCode code;
};

#define STAGE(name, ...) extern const HeatCode heat_##name;
#include "heat.stages"
#undef STAGE

// Every stage, in the list's order.
const std::vector<const HeatStage*>& heat_stages();
// The stages, then every stage's variants as stages of their own (same file, block, side).
const std::vector<const HeatStage*>& heat_stages_and_variants();
// The stage and its variants: what a stage's tests check.
std::vector<const HeatStage*> stage_and_variants(const HeatStage& stage);
