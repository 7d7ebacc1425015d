// Chapter 01-heat: 3D heat diffusion by an explicit 7-point stencil, float.
// One step maps a field `in` to `out`:
//   out = in + coeff * (sum of the 6 neighbours - 6 in),  coeff = lam dt / dx^2,
// with dx = dy = dz = 1, lam = 1 and dt = dx^2 / (6.1 lam), on interior cells only: the
// boundary cells of `out` are never written (the caller keeps them equal to `in`'s).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

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

constexpr float kHeatCoeff = 1.0f / 6.1f;  // lam dt / dx^2 with the blog post's constants

// One step: a CPU stage on host pointers; a GPU stage enqueues it on `stream`, on device
// pointers, in blocks of `block` threads.
using HeatHostStep = void (*)(const HeatGrid& grid, float coeff, const float* in, float* out);
using HeatDeviceStep = void (*)(const HeatGrid& grid, float coeff, const float* in, float* out, dim3 block,
                                cudaStream_t stream);

// What a stage's file hands over, as `const HeatCode heat_<stage>`: its step, and a GPU
// stage's own block shape.
using HeatCode = tut::HostOrDeviceCode<HeatHostStep, HeatDeviceStep, dim3>;

struct HeatStage : tut::StageInfo {
  const char* lesson_block;  // "64x8x1": the block shape the lesson gives it ("-" on the CPU)
  HeatCode code;
};

#define STAGE(name, ...) extern const HeatCode heat_##name;
#include "heat.stages"
#undef STAGE

// Every stage, in the list's order.
const std::vector<const HeatStage*>& heat_stages();
