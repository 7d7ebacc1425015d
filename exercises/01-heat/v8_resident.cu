// Exercise skeleton generated from solutions/01-heat/v8_resident.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// heat v8: the small problem kept on chip. One cooperative kernel runs every step; each block
// holds its box of the field in registers from the first step to the last.
//   run:  build-ex/chapters/01-heat/heat3d --stage v4,v7,v8
//   test: meson test -C build-ex heat-v8 heat-v8-idea --print-errorlogs
// Change from v7: no launch per step at all, and no trip through DRAM per step. The grid of
// boxes is launched once, cooperatively (every block resident at once), and loops over the
// steps. A thread owns a column of kColumn cells up z in registers; the block's threads cover
// a box of block.x x block.y x (block.z kColumn) cells. Each step, a thread puts its column in
// the block's shared tile, where its x-y neighbours read it, and takes the planes below and
// above its column from memory; the faces of the box, the only values another block reads,
// are written out after the update; then the whole grid waits at one barrier
// (cooperative_groups' grid.sync()). Two buffers alternate as the faces' mailboxes, so a
// block that runs ahead never overwrites faces that a slower one still reads.
// Why it should help: on the seed's 128^3 field (8 MiB) a step of v4 or v7 costs a kernel's
// start and tail, a few microseconds, for very little work. Here a step costs the update from
// registers and shared memory, the faces through L2 (a few percent of the field), and one grid
// barrier (heat3d notes what one costs on this GPU).
// What still limits it: the barrier and the faces' round trip through L2 every step, and the
// shared tile (each update reads four neighbours from it). The field must fit: the boxes must
// all be resident, one block of 1024 threads per multiprocessor, 16 K cells each (about 2.2
// million cells on 132 SMs). A field that does not fit runs v5 instead, and says so once.
#include <cooperative_groups.h>

#include <cstdio>
#include <type_traits>

#include "check.h"
#include "heat.h"

namespace cg = cooperative_groups;

namespace {

constexpr dim3 kBlock{128, 8, 1};  // 4 warps along x (all of a row of 128), 8 rows: 1024 threads
constexpr int kColumn = 16;        // cells a thread keeps, up z: 16 K cells per block

// BX, BY: the block's shape where it is known when compiling (the lesson's 128 x 8, whose tile
// offsets become constants); 0: read it from blockDim (any other shape --block asks for).
template <int COLUMN, int BX, int BY>
__global__ void __launch_bounds__(1024, 1)
    resident_kernel(const HeatGrid g, const float coeff, float* a, float* b, const int steps) {
  cg::grid_group grid = cg::this_grid();
  extern __shared__ float tile[];  // per plane of the box: its cells and a ring of one cell
  const int bx = BX ? BX : int(blockDim.x), by = BY ? BY : int(blockDim.y);
  const int pitch = bx + 2, plane_cells = pitch * (by + 2);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = 1 + blockIdx.x * bx + tx, j = 1 + blockIdx.y * by + ty;
  const int k_first = 1 + (blockIdx.z * blockDim.z + threadIdx.z) * COLUMN;  // my lowest cell
  const int planes_in_grid = max(0, min(COLUMN, g.nz - k_first));  // my cells with k < nz
  const bool xy_in_grid = i < g.nx && j < g.ny, xy_interior = i <= g.nx - 2 && j <= g.ny - 2;
  const int interior = xy_interior ? max(0, min(COLUMN, g.nz - 1 - k_first)) : 0;  // my cells 0 .. interior-1
  // int offsets: a grid that fits on chip has a few million cells (run() checks it fits)
  const int plane = g.nx * g.ny, mine = k_first * plane + j * g.nx + i;
  float* const my_tile = tile + threadIdx.z * COLUMN * plane_cells + (ty + 1) * pitch + tx + 1;
  // A neighbouring column that is interior changes every step: it belongs to another box (or
  // another thread's column), which writes it out as a face. The boundary never changes: its
  // ring cells are loaded once, and no face is written for it.
  const auto interior_column = [&](int di, int dj) { return i + di >= 1 && j + dj >= 1 && i + di <= g.nx - 2 && j + dj <= g.ny - 2; };
  const bool left = tx == 0, right = tx == bx - 1, front = ty == 0, back = ty == by - 1;
  const bool on_read_face = (left && interior_column(-1, 0)) || (right && interior_column(1, 0)) ||
                            (front && interior_column(0, -1)) || (back && interior_column(0, 1));
  const bool under_changes = k_first - 1 >= 1, over_changes = k_first + COLUMN <= g.nz - 2;

  float c[COLUMN];  // my cells up z (0 outside the grid)
#pragma unroll
  for (int z = 0; z < COLUMN; ++z) c[z] = xy_in_grid && z < planes_in_grid ? a[mine + z * plane] : 0.0f;

  // In the lesson's block (one layer of threads), the ring's cells are shared out evenly, a few
  // per thread, so that all of its loads are in flight at once: the cells n, n + threads, ...
  // of the ring's rows (2 BX COLUMN cells) then its columns (2 BY COLUMN). Worked out once:
  // where each cell is in memory (-1: outside the grid) and in the tile, and whether it changes.
  constexpr int kRing = BX ? 2 * (BX + BY) * COLUMN : 0, kThreads = BX * BY;
  constexpr int kPerThread = BX ? (kRing + kThreads - 1) / kThreads : 1;
  int ring_at[kPerThread], ring_tile[kPerThread];  // ring_tile: tile offset x 2 + (changes ? 1 : 0)
  if constexpr (BX != 0) {
#pragma unroll
    for (int q = 0; q < kPerThread; ++q) {
      const int n = ty * BX + tx + q * kThreads, rows = 2 * BX * COLUMN;
      int ti, tj, z;  // the ring cell, in the tile's coordinates, and its plane
      if (n < rows) z = n % (BX * COLUMN) / BX, ti = 1 + n % BX, tj = n < BX * COLUMN ? 0 : BY + 1;
      else z = (n - rows) % (BY * COLUMN) / BY, tj = 1 + (n - rows) % BY, ti = n - rows < BY * COLUMN ? 0 : BX + 1;
      const int gi = i - tx - 1 + ti, gj = j - ty - 1 + tj, k = k_first + z;
      const bool changes = gi >= 1 && gj >= 1 && gi <= g.nx - 2 && gj <= g.ny - 2;
      ring_at[q] = n < kRing && gi < g.nx && gj < g.ny && k < g.nz ? k * plane + gj * g.nx + gi : -1;
      ring_tile[q] = 2 * (z * plane_cells + tj * pitch + ti) + changes;
    }
  }

  float* from = a;  // the buffer whose faces hold the field before this step
  float* to = b;
  float below = 0.0f, above = 0.0f;  // the cells under and over my column
  for (int step = 0; step < steps; ++step) {
    // The ring around the box: the faces of the boxes beside (and the boundary, loaded once).
    // __ldcg reads through L2 only: the L1 may still hold what these cells were two steps ago.
    if constexpr (BX != 0) {
      float got[kPerThread];
#pragma unroll
      for (int q = 0; q < kPerThread; ++q)
        if (ring_at[q] >= 0 && (step == 0 || ring_tile[q] & 1)) got[q] = __ldcg(&from[ring_at[q]]);
#pragma unroll
      for (int q = 0; q < kPerThread; ++q)
        if (ring_at[q] >= 0 && (step == 0 || ring_tile[q] & 1)) tile[ring_tile[q] >> 1] = got[q];
    } else {  // any other block: each column of the ring loaded by the thread beside it
      const auto ring_column = [&](bool beside, int di, int dj) {
        if (beside && i + di < g.nx && j + dj < g.ny && (step == 0 || interior_column(di, dj))) {
          const float* at = from + mine + dj * g.nx + di;
          float* into = my_tile + dj * pitch + di;
#pragma unroll 1  // kept short: it holds few registers
          for (int z = 0; z < planes_in_grid; ++z, at += plane, into += plane_cells) *into = __ldcg(at);
        }
      };
      ring_column(left, -1, 0);
      ring_column(right, 1, 0);
      ring_column(front, 0, -1);
      ring_column(back, 0, 1);
    }
    if (xy_in_grid && k_first - 1 < g.nz && (step == 0 || under_changes)) below = __ldcg(&from[mine - plane]);
    if (xy_in_grid && k_first + COLUMN < g.nz && (step == 0 || over_changes)) above = __ldcg(&from[mine + COLUMN * plane]);
#pragma unroll
    for (int z = 0; z < COLUMN; ++z) my_tile[z * plane_cells] = c[z];
    __syncthreads();
    // TODO(exercise): update my interior cells in place (the x-y neighbours from the tile, the z
    //   neighbours from my column, `below` and `above`), then write to `to` the cells another
    //   box or column reads: all of mine on a face read by the box beside, my lowest and my
    //   highest where the column under or over me reads them

    grid.sync();  // every face of this step is written, and the tile is free again
    float* const written = to;
    to = from;
    from = written;
  }
  // The field of the last step, whole, into the buffer that holds its faces.
#pragma unroll
  for (int z = 0; z < COLUMN; ++z)
    if (z < interior) from[mine + z * plane] = c[z];
}

template <int COLUMN>
float* run(const HeatGrid& g, float coeff, float* a, float* b, int steps, dim3 block, cudaStream_t stream) {
  if (g.interior_cells() == 0 || steps == 0) return a;
  const dim3 boxes(blocks_for(g.nx - 2, block.x), blocks_for(g.ny - 2, block.y),
                   blocks_for(g.nz - 2, block.z * COLUMN));
  const size_t shared = size_t(block.z) * COLUMN * (block.x + 2) * (block.y + 2) * sizeof(float);
  const bool lessons_block = block.x == kBlock.x && block.y == kBlock.y && block.z == 1;
  const auto kernel = lessons_block ? resident_kernel<COLUMN, kBlock.x, kBlock.y> : resident_kernel<COLUMN, 0, 0>;
  static const bool opted_in = (allow_most_shared_memory(resident_kernel<COLUMN, kBlock.x, kBlock.y>),
                                 allow_most_shared_memory(resident_kernel<COLUMN, 0, 0>), true);
  (void)opted_in;
  const long long needed = (long long)boxes.x * boxes.y * boxes.z;
  const int fit = resident_blocks(reinterpret_cast<const void*>(kernel), int(block.x * block.y * block.z), shared);
  if (needed > fit) {  // not on chip: the best streaming stage, in its own block shape
    static bool told = false;
    if (!told) std::fprintf(stderr, "heat v8: %dx%dx%d needs %lld resident blocks, this GPU holds %d: running v5\n",
                            g.nx, g.ny, g.nz, needed, fit);
    told = true;
    return heat_v5.run(g, coeff, a, b, steps, heat_v5.block, stream);
  }
  HeatGrid grid = g;
  void* args[] = {&grid, &coeff, &a, &b, &steps};
  CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), boxes, block, args, shared, stream));
  CUDA_CHECK_LAUNCH();
  return steps % 2 ? b : a;
}

}  // namespace

const HeatCode heat_v8{run<kColumn>, kBlock};
