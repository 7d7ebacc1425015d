// Exercise skeleton generated from solutions/01-heat/v5_stream.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// heat v5: each thread marches 4 cells of a row (a float4) up z, what it reuses in registers.
//   run:  build-ex/chapters/01-heat/heat3d --size 512 --stage v4,v5
//   test: meson test -C build-ex heat-v5 heat-v5-idea --print-errorlogs
// Change from v4: one long march per thread instead of Z_FACTOR cells, and wider threads. A
// thread owns VEC = 4 neighbouring cells in x (one float4 load and store) in each of its ROWS
// rows (1 here; the sweep tries 2 and 4), and carries them up z: the planes below and above the
// one it updates stay in its registers (a queue whose loads are issued AHEAD planes early), the
// y-neighbours are its own rows plus one row each side, and the x-neighbours are its own cells
// plus one cell from the thread beside it, passed by a warp shuffle (__shfl_up/down_sync).
// Why it should help: on the H200 a kernel that only copies, one float per thread, reaches about
// two thirds of cudaMemcpy's rate, one that copies a float4 per thread all of it (heat3d's "copy
// by a kernel" line).
// Memory instructions, not bytes, were v4's limit. Here each value comes from DRAM once per
// step, and a thread issues 3 float4 loads (its row and the rows beside it) and one float4
// store per 4 updates; no shared memory, no __syncthreads.
// What still limits it: a one-step kernel can at best move 8 bytes per update at the copy
// bandwidth; the rows beside each row are loaded again (from L2, not DRAM).
// Rows of a length that 4 does not divide (or misaligned buffers) take the same march with one
// cell per thread.
#include <cstdint>
#include <utility>

#include "check.h"
#include "heat.h"

namespace {

constexpr dim3 kBlock{64, 4, 1};  // 2 warps along x (256 cells, 1 KiB contiguous), 4 rows
constexpr unsigned kMostThreads = 256;  // the registers that the sweep's 4 x 4 cells and queue take
constexpr int kMinPlanes = 8;           // the shortest march worth its start-up loads

// VEC cells of a row, loaded and stored as one instruction (float4) when VEC is 4.
template <int VEC>
struct Cells {
  float v[VEC];
};

template <int VEC>
__device__ __forceinline__ Cells<VEC> load_cells(const float* at) {
  Cells<VEC> c;
  if constexpr (VEC == 4) {
    const float4 f = __ldg(reinterpret_cast<const float4*>(at));
    c.v[0] = f.x, c.v[1] = f.y, c.v[2] = f.z, c.v[3] = f.w;
  } else {
    for (int q = 0; q < VEC; ++q) c.v[q] = __ldg(at + q);
  }
  return c;
}

template <int VEC>
__device__ __forceinline__ void store_cells(float* at, const Cells<VEC>& c) {
  if constexpr (VEC == 4)
    *reinterpret_cast<float4*>(at) = make_float4(c.v[0], c.v[1], c.v[2], c.v[3]);
  else
    for (int q = 0; q < VEC; ++q) at[q] = c.v[q];
}

template <int VEC, int ROWS, int AHEAD>
__global__ void __launch_bounds__(kMostThreads) heat_kernel(const HeatGrid g, const float coeff,
                                                           const float* __restrict__ in, float* __restrict__ out,
                                                           const int planes) {
  // This thread's strip: cells i .. i + VEC - 1 of rows j0 .. j0 + ROWS - 1, planes k_first ..
  // k_end - 1. Strips reach from the boundary (i, j0 = 0) to it: boundary cells are loaded,
  // for their neighbours, and written back unchanged.
  const int i = (blockIdx.x * blockDim.x + threadIdx.x) * VEC;
  const int j0 = (blockIdx.y * blockDim.y + threadIdx.y) * ROWS;
  const int k_first = 1 + (blockIdx.z * blockDim.z + threadIdx.z) * planes;
  const int k_end = min(k_first + planes, g.nz - 1);  // one past the last plane it updates
  if (j0 > g.ny - 2 || k_first >= k_end) return;      // no interior row or plane
  // Threads past the end of the row repeat its last cells (their shuffles must not stop) and
  // store nothing. The x-neighbours beyond a strip come by shuffle from the thread before and
  // after it in the warp, unless that thread is in another row of the block or warp: then the
  // thread loads them itself (`edge`).
  const int lane = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32;
  const bool stores = i <= g.nx - VEC;
  const int ic = min(i, g.nx - VEC);
  const bool left_edge = (lane == 0 || threadIdx.x == 0) && i > 0;
  const bool right_edge = (lane == 31 || threadIdx.x == blockDim.x - 1) && i + VEC <= g.nx - 1;
  const int row = g.nx, plane = g.nx * g.ny;
  // Where this thread's cells of row j0 + r, plane k start (r = -1 and ROWS: the rows beside the strip).
  auto cell = [&](int k, int r) { return k * plane + (j0 + r) * row + ic; };

  // The queue: slot s holds plane k + s of rows j0 - 1 .. j0 + ROWS (the strip and one row each
  // side) and, where this thread loads it, the x-neighbour beyond the strip. One per row: the
  // rare thread that needs both (in a row one thread wide) loads the right one when it uses it.
  constexpr int kSlots = AHEAD + 1;
  Cells<VEC> rows[kSlots][ROWS + 2];
  float edges[kSlots][ROWS] = {};
  const int edge_offset = left_edge ? -1 : VEC;
  auto load = [&](int slot, int k) {
#pragma unroll
    for (int r = 0; r < ROWS + 2; ++r) {
      const int j = j0 - 1 + r;
      rows[slot][r] = k <= k_end && j >= 0 && j < g.ny ? load_cells<VEC>(in + cell(k, r - 1)) : Cells<VEC>{};
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
      if ((left_edge || right_edge) && k <= k_end && j0 + r < g.ny)
        edges[slot][r] = __ldg(in + cell(k, r) + edge_offset);
  };
  Cells<VEC> below[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
    below[r] = j0 + r < g.ny ? load_cells<VEC>(in + cell(k_first - 1, r)) : Cells<VEC>{};
#pragma unroll
  for (int s = 0; s < kSlots; ++s) load(s, k_first + s);

  // The loop over planes is unrolled by the queue's length, so that sliding the queue is a
  // renaming of registers: a copy from a register that a load is still filling would wait for it.
  const int count = k_end - k_first;
  for (int n0 = 0; n0 < count; n0 += kSlots) {
#pragma unroll
    for (int u = 0; u < kSlots; ++u) {  // slot u holds plane k, slot u + 1 the plane above
      const int k = k_first + n0 + u;
      if (k >= k_end) break;
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        const Cells<VEC>& centre = rows[u][r + 1];
        Cells<VEC> next = centre;
        // TODO(exercise): fetch the cell left of the strip's first and right of its last from the
        //   neighbouring lanes (or this thread's own edge loads), then update the VEC cells
        //   into `next`; a boundary cell keeps its value

        const int j = j0 + r;
        if (stores && j >= 1 && j <= g.ny - 2) store_cells<VEC>(out + cell(k, r), next);
        below[r] = centre;
      }
      load(u, k + kSlots);  // the slot moves to the top of the queue
    }
  }
}

template <int VEC, int ROWS, int AHEAD>
void launch(const HeatGrid& g, float coeff, const float* in, float* out, dim3 block, cudaStream_t stream) {
  const dim3 strips(blocks_for(blocks_for(g.nx, VEC), block.x), blocks_for(blocks_for(g.ny - 1, ROWS), block.y));
  const int planes = planes_per_column(g.nz - 2, strips.x * strips.y * block.z, kMinPlanes);
  const dim3 grid(strips.x, strips.y, blocks_for(blocks_for(g.nz - 2, planes), block.z));
  heat_kernel<VEC, ROWS, AHEAD><<<grid, block, 0, stream>>>(g, coeff, in, out, planes);
  CUDA_CHECK_LAUNCH();
}

// float4 rows need every row to start on 16 bytes: a length divisible by 4 and aligned buffers.
bool rows_fit_float4(const HeatGrid& g, const float* a, const float* b) {
  return g.nx % 4 == 0 && reinterpret_cast<uintptr_t>(a) % 16 == 0 && reinterpret_cast<uintptr_t>(b) % 16 == 0;
}

template <int VEC, int ROWS, int AHEAD>
float* run(const HeatGrid& g, float coeff, float* a, float* b, int steps, dim3 block, cudaStream_t stream) {
  if (g.interior_cells() == 0) return a;  // nothing to update (and a grid of 0 blocks is an error)
  const bool wide = VEC == 4 && rows_fit_float4(g, a, b);
  for (int s = 0; s < steps; ++s) {
    if (wide)
      launch<VEC, ROWS, AHEAD>(g, coeff, a, b, block, stream);
    else
      launch<1, ROWS, AHEAD>(g, coeff, a, b, block, stream);
    std::swap(a, b);
  }
  return a;
}

constexpr BlockLimits kLimits{kMostThreads};

// The sweep that chose 4 cells wide, 1 row and 1 plane ahead on the H200 (see the lesson).
constexpr HeatVariant kSweep[] = {
    {"v5_scalar", "v5 with one cell per thread in x (no float4)", run<1, 1, 1>, kLimits},
    {"v5_rows2", "v5 with 2 rows per thread", run<4, 2, 1>, kLimits},
    {"v5_rows4", "v5 with 4 rows per thread", run<4, 4, 1>, kLimits},
    {"v5_ahead2", "v5 with 2 planes loaded ahead", run<4, 1, 2>, kLimits},
    {"v5_ahead3", "v5 with 3 planes loaded ahead", run<4, 1, 3>, kLimits}};

}  // namespace

const HeatCode heat_v5{run<4, 1, 1>, kBlock, kLimits, kSweep};
