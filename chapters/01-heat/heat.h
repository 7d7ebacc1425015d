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

using tut::blocks_for;  // the stages size their grids with it

struct HeatGrid {
  int nx, ny, nz;  // x is the fastest axis: cell (i, j, k) is at (k * ny + j) * nx + i
  size_t cells() const { return size_t(nx) * ny * nz; }
  size_t interior_cells() const {
    auto inner = [](int n) { return n > 2 ? size_t(n - 2) : 0; };
    return inner(nx) * inner(ny) * inner(nz);
  }
};

constexpr float kHeatCoeff = 1.0f / 6.1f;  // lam dt / dx^2 with the seed's constants

// Every stage has this signature. Host stages take host pointers and ignore block and
// stream; device stages take device pointers and enqueue one step on `stream`.
using HeatStep = void (*)(const HeatGrid& grid, float coeff, const float* in, float* out, dim3 block,
                          cudaStream_t stream);

struct HeatStage {
  const char* name;     // "v2": what --stage and the tests call it
  const char* idea;     // the stage's one change, for the table
  bool on_device;
  dim3 block;           // the stage's own block shape (device stages)
  HeatStep step;
  const char* source;   // the file that holds it, to name in error messages
};

// The file a stage lives in: solutions/01-heat/... or exercises/01-heat/...
#define HEAT_STAGE_FILE(file) TUT_KERNELS_DIR "/01-heat/" file

extern const HeatStage heat_v0, heat_v0_omp, heat_v1, heat_v2, heat_v3, heat_v4;

// All stages in lesson order: v0, v0_omp, v1, v2, v3, v4.
const std::vector<const HeatStage*>& heat_stages();
