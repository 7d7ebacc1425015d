// Exercise skeleton generated from solutions/05-four-steps/step4_align.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// Step 4, align data (GPU) and tile (CPU): cpu4, gpu4, acc4.
//   run:  build-ex/chapters/05-four-steps/vortex --stage cpu3,cpu4,gpu3,gpu4,acc3,acc4
//   test: meson test -C build-ex four-steps-cpu4 four-steps-gpu4 four-steps-acc4 --print-errorlogs
// GPU: step 3's kernels (gpu4) or OpenACC regions (acc4), on rows padded to a multiple of 32
// doubles, so that every row starts on a 256-byte boundary and a warp's 32 cells of a row are
// two whole 128-byte lines (rows of 2001 doubles start anywhere, and most warps touch a third).
// CPU: the mesh in tiles of a fixed size, each thread taking whole tiles and doing all four
// passes on a tile before the next: the viscosity, primitive values and face fluxes of a tile
// live in a small scratch area that stays in the core's cache, and never go to memory; only the
// state is read and the new state written. What still limits it: the faces on a tile's edge are
// computed by both tiles beside them.
#include "step_support.h"

#ifndef _OPENACC  // nvcc's pass: the CPU and CUDA stages
namespace {

constexpr int kTileX = 64, kTileY = 16;  // cells; the scratch of a tile is about 120 KiB

// A tile's scratch: primitives and viscosity of its cells and a ring of one more (the viscous
// fluxes need the neighbours across), and the fluxes of its faces (one more face than cells).
struct Scratch {
  Prim prim[kTileY + 2][kTileX + 2];
  double mu[kTileY + 2][kTileX + 2];
  Cons flux_x[kTileY][kTileX + 1];
  Cons flux_y[kTileY + 1][kTileX];
};

// One Runge-Kutta stage on the tile of cells [i0, i0 + w) x [j0, j0 + h).
void stage_on_tile(const Problem& p, RungeKuttaStage rk, double dt, const double* u, const double* in, double* out,
                   int i0, int j0, int w, int h, Scratch& s) {
  const Mesh& m = p.mesh;
  const Gas& g = p.gas;
  auto cell = [&](int i, int j) { return load_cell(m, in, at(m, wrap(i, 0, m.nx), wrap(j, 0, m.ny))); };
  // TODO(exercise): fill the scratch: primitives and viscosity of cells i0 - 1 .. i0 + w, j0 - 1 .. j0 + h
  //   (tile positions r + 1, c + 1), then the x faces of the tile (w + 1 per row) and the y faces
  //   (h + 1 per column): each the convective minus the viscous flux, as in step 3
}

void run_cpu4(const Problem& p, double* q, double* work, Clock* clock, int steps) {
#pragma omp parallel
  for (int n = 0; n < steps; ++n) {
    host_time_step(p, q, clock);
    for (int s = 0; s < 3; ++s) {
      const StageBuffers b = stage_buffers(p.mesh, q, work, s);
      tiled_stage(p, kRungeKutta[s], clock->dt, q, b.in, b.out, 0, p.mesh.ny);
    }
  }
}

}  // namespace

void tiled_stage(const Problem& p, RungeKuttaStage rk, double dt, const double* u, const double* in, double* out,
                 int j_begin, int j_end) {
  thread_local Scratch scratch;  // one per thread, reused for every tile it takes
  const Mesh& m = p.mesh;
  const int tiles_x = int(blocks_for(m.nx, kTileX)), tiles_y = int(blocks_for(j_end - j_begin, kTileY));
#pragma omp for collapse(2) schedule(static)
  for (int ty = 0; ty < tiles_y; ++ty)
    for (int tx = 0; tx < tiles_x; ++tx) {
      const int i0 = tx * kTileX, j0 = j_begin + ty * kTileY;
      stage_on_tile(p, rk, dt, u, in, out, i0, j0, std::min(kTileX, m.nx - i0), std::min(kTileY, j_end - j0), scratch);
    }
}

const FourStepsCode four_steps_cpu4{run_cpu4, kRungeKuttaPlanes};
// TODO(exercise): step 3's kernels with rows padded to a multiple of the warp's 32 (the last field)
const FourStepsCode four_steps_gpu4{four_steps_gpu3.run, kFourPassWorkPlanes, 0};

#else  // GCC's OpenACC pass over this file: the acc stage, step 3's regions on padded rows
// TODO(exercise): step 3's regions with rows padded to a multiple of the warp's 32 (the last field)
const FourStepsCode four_steps_acc4{four_steps_acc3.run, kFourPassWorkPlanes, 0};

#endif  // _OPENACC
