// Exercise skeleton generated from solutions/01-heat/v8_resident.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// heat v8: the small problem kept on chip. One cooperative kernel runs every step; each block
// holds its box of the field in registers from the first step to the last.
//   run:  build-ex/chapters/01-heat/heat3d --stage v4,v7,v8
//   test: meson test -C build-ex heat-v8 heat-v8-idea --print-errorlogs
// Change from v7: no launch per step at all, and no trip through DRAM per step. The grid of
// boxes is launched once, cooperatively (every block resident at once), and loops over the
// steps. A box is a stack of whole rows of x: a warp holds one row, its 32 lanes a float4 each
// (128 cells, v5's layout), and kColumn such rows up z, all in registers. So the x neighbours
// come from the lane beside (a shuffle), the z neighbours from the lane's own registers, and
// only the y neighbours from the block's shared tile, one float4 load for four cells. The
// boxes split y and z. Each step, the rows a neighbouring box reads (its first and last rows up
// y, its lowest and highest up z) go out to a mailbox in L2, and the whole grid waits at one
// barrier (cooperative_groups' grid.sync()); then each box takes the rows around it from the
// mailbox. Two mailboxes take turns, so no box overwrites rows that a slower one still reads.
// Boundary cells sit inside the boxes with weight 0 in `c + w (sum - 6 c)`: no branch per cell.
// Why it should help: on the seed's 128^3 field (8 MiB) a step of v4 or v7 costs a kernel's
// start and tail, a few microseconds, for very little work. Here a step costs about eight
// instructions per cell, the rows around each box through L2, and one grid barrier (heat3d
// notes what one costs on this GPU).
// What still limits it: the barrier and the round trip to L2 around it, every step (Nsight
// Compute: warps wait at barriers, no unit is busy). Two steps per barrier, with a ring one row
// and one plane deep computed twice, were tried and lost (chapter README). And the field must
// fit: rows of at most 128 cells, and every box resident (about 2 million cells on 132 SMs). A
// field that does not fit runs v5 instead, and says so once.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdio>

#include "check.h"
#include "heat.h"
#include "path_taken.h"
#include "stress.h"

namespace cg = cooperative_groups;

namespace {

constexpr int kRowCells = 128;     // a warp's row: 32 lanes, a float4 each
constexpr dim3 kBlock{32, 16, 1};  // a warp per row, 16 rows up y
constexpr int kColumn = 8;         // rows up z: 8 float4s, 32 cells per thread, 16 K per box
constexpr int kThreads = 512;      // kBlock's threads: what the kernel's registers are sized for

// The four cells of `c` one step on: x neighbours from the lanes beside (the cells past the
// row's ends have weight 0, so what the edge lanes get does not matter), y and z from the rest.
__device__ __forceinline__ float4 stepped(float4 c, float4 y_minus, float4 y_plus, float4 z_minus, float4 z_plus,
                                          float4 w) {
  const float left = __shfl_up_sync(0xffffffffu, c.w, 1), right = __shfl_down_sync(0xffffffffu, c.x, 1);
  const auto cell = [](float c, float w, float x_minus, float x_plus, float y_minus, float y_plus, float z_minus,
                       float z_plus) {
    return fmaf(w, fmaf(-6.0f, c, ((x_minus + x_plus) + (y_minus + y_plus)) + (z_minus + z_plus)), c);
  };
  return make_float4(cell(c.x, w.x, left, c.y, y_minus.x, y_plus.x, z_minus.x, z_plus.x),
                     cell(c.y, w.y, c.x, c.z, y_minus.y, y_plus.y, z_minus.y, z_plus.y),
                     cell(c.z, w.z, c.y, c.w, y_minus.z, y_plus.z, z_minus.z, z_plus.z),
                     cell(c.w, w.w, c.z, right, y_minus.w, y_plus.w, z_minus.w, z_plus.w));
}

// A float4 from global memory into shared memory without passing through registers, read from
// L2 (cp.async.cg): the L1 may hold what the row was two steps ago. Waited for by
// wait_for_my_copies(). Before compute capability 8.0 (no cp.async), an ordinary load and store.
__device__ __forceinline__ void copy_through_l2(float4* shared, const float4* global) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(unsigned(__cvta_generic_to_shared(shared))),
               "l"(global)
               : "memory");
#else
  *shared = __ldcg(global);
#endif
}
__device__ __forceinline__ void wait_for_my_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// A load that sees every write made visible before the flag it reads (ld.acquire.gpu).
__device__ __forceinline__ int acquired(const int* flag) {
  int value;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];\n" : "=r"(value) : "l"(flag) : "memory");
  return value;
}

// Blocks of 32 x rows threads (rows = blockDim.y); block (bx, bz) owns the rows j0 .. j0 + rows - 1
// (j0 = bx rows) of the planes k0 .. k0 + COLUMN - 1 (k0 = bz COLUMN), boundary included.
// mail: two mailboxes of nz x ny rows of 32 float4s.
// FLAGS: instead of the grid barrier, each box waits only for the boxes beside it (v8_flags).
template <int COLUMN, int THREADS, bool FLAGS>
__global__ void __launch_bounds__(THREADS, 1)
    resident_kernel(const HeatGrid g, const float coeff, float* a, float4* mail, int* published, const int steps) {
  static_assert(COLUMN >= 2, "the lowest and highest rows of a box are distinct");
  cg::grid_group grid = cg::this_grid();
  extern __shared__ float4 tile[];  // [COLUMN][rows + 2][32]: the box's rows and the rows beside it up y
  const int lane = threadIdx.x, row = threadIdx.y, rows = blockDim.y, pitch = (rows + 2) * 32;
  const int j0 = blockIdx.x * rows, j = j0 + row, k0 = blockIdx.y * COLUMN;
  const bool in_grid = j < g.ny;
  float4* const mine = tile + (row + 1) * 32 + lane;  // my row of plane z is mine[z * pitch]
  // int offsets: a field that fits on chip has a few million cells (run() checks it fits)
  const int plane = g.ny * 32, mailbox = g.nz * plane;  // float4s in a mailbox's plane, in a mailbox
  const auto at = [&](int jj, int kk) { return kk * plane + jj * 32 + lane; };

  // Which rows another box reads: all of mine if I am its neighbour up y, else my ends up z.
  const bool box_under = k0 > 0, box_over = k0 + COLUMN < g.nz;
  const bool box_before = row == 0 && j0 > 0, box_after = row == rows - 1 && j0 + rows < g.ny;
  const bool whole = k0 + COLUMN <= g.nz;  // else the top box, partly past the grid

  // My four cells' weight: coeff inside, 0 on the boundary and past the grid (they keep their value).
  const bool j_inside = j >= 1 && j <= g.ny - 2;
  const auto weight = [&](int i) { return j_inside && i >= 1 && i <= g.nx - 2 ? coeff : 0.0f; };
  const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const float4 w = make_float4(weight(4 * lane), weight(4 * lane + 1), weight(4 * lane + 2), weight(4 * lane + 3));
  const float4 w_lowest = k0 == 0 ? zero : w, w_highest = k0 + COLUMN == g.nz ? zero : w;

  float4 c[COLUMN];  // my cells, 0 past the grid
#pragma unroll
  for (int z = 0; z < COLUMN; ++z) {
    float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int q = 0; q < 4; ++q)
      if (in_grid && k0 + z < g.nz && 4 * lane + q < g.nx) v[q] = a[(size_t(k0 + z) * g.ny + j) * g.nx + 4 * lane + q];
    c[z] = make_float4(v[0], v[1], v[2], v[3]);
  }
  // The ring rows that no box writes (past the grid) stay 0.
#pragma unroll
  for (int z = 0; z < COLUMN; ++z) {
    if (row == 0) mine[z * pitch - 32] = zero;
    if (row == rows - 1) mine[z * pitch + 32] = zero;
  }

  // __stcg / __ldcg go through L2 only: the L1 may hold what a row was two steps ago.
  const auto publish = [&](float4* to) {
    if (!in_grid) return;
    if (box_before || box_after) {
#pragma unroll
      for (int z = 0; z < COLUMN; ++z)
        if (k0 + z < g.nz) __stcg(to + at(j, k0) + z * plane, c[z]);
    } else {
      if (box_under) __stcg(to + at(j, k0), c[0]);
      if (box_over) __stcg(to + at(j, k0 + COLUMN - 1), c[COLUMN - 1]);
    }
  };
  // Where every box stands: published[box] = the mailboxes it has filled (FLAGS only).
  const int box = blockIdx.y * gridDim.x + blockIdx.x;
  const auto all_published = [&](int filled) {
    if constexpr (FLAGS) {
      __syncthreads();  // every row of my box is written ...
      if (row == 0 && lane == 0) {
        __threadfence();  // ... and visible on the whole GPU before the count says so
        atomicExch(published + box, filled);
      }
    } else {
      grid.sync();
    }
  };
  const auto wait_for_boxes_beside = [&](int filled) {
    if constexpr (FLAGS) {
      const bool there[4] = {blockIdx.x > 0, blockIdx.x + 1 < gridDim.x, blockIdx.y > 0, blockIdx.y + 1 < gridDim.y};
      const int beside[4] = {box - 1, box + 1, box - int(gridDim.x), box + int(gridDim.x)};
      if (row == 0 && lane < 4 && there[lane])
        while (acquired(published + beside[lane]) < filled) {
        }
      __syncthreads();
    }
  };
  // Two mailboxes take turns by the step's parity: a box may publish the next step's rows while
  // a slower neighbour still reads this step's. (The stress suite's build with one mailbox,
  // removed("second_mailbox"), must fail.)
  const auto mailbox_of = [&](int step) { return mail + (tut::stress::removed("second_mailbox") ? 0 : step & 1) * mailbox; };
  publish(mailbox_of(0));
  all_published(1);

  for (int step = 0; step < steps; ++step) {
    wait_for_boxes_beside(step + 1);
    tut::stress::pause_if((blockIdx.x + blockIdx.y) % 2 == 1);  // stress builds: half the boxes read late
    const float4* from = mailbox_of(step);
    float4 under = zero, over = zero;  // the rows under and over my column
    if (in_grid && box_under) under = __ldcg(from + at(j, k0 - 1));
    if (in_grid && box_over) over = __ldcg(from + at(j, k0 + COLUMN));
    // The rows beside the box up y, where a box is there, copied straight into the tile (by
    // the box's first or last warp, the only one that reads them).
    const auto take_rows_beside = [&](bool there, int jj, int slot) {
      if (there)
#pragma unroll
        for (int z = 0; z < COLUMN; ++z)
          if (k0 + z < g.nz) copy_through_l2(mine + z * pitch + slot, from + at(jj, k0) + z * plane);
    };
    take_rows_beside(box_before, j0 - 1, -32);
    take_rows_beside(box_after, j0 + rows, 32);
#pragma unroll
    for (int z = 0; z < COLUMN; ++z) mine[z * pitch] = c[z];
    __syncthreads();  // the rows of my box are in the tile
    // Only my own copies of the rows beside are waited for (the edge rows wait; the others go on).
    wait_for_my_copies();
    // TODO(exercise): update my column in place, from the second row to the second highest (y from
    //   the tile's rows beside mine, x by shuffles in stepped(), z from my registers), then its
    //   two ends, which need `under` and `over` from L2: their loads have that long to arrive

    publish(mailbox_of(step + 1));
    all_published(step + 2);  // the tile is free again, and the next step may read my rows
  }

  // The field of the last step, whole, back into `a`.
#pragma unroll
  for (int z = 0; z < COLUMN; ++z) {
    const float v[4] = {c[z].x, c[z].y, c[z].z, c[z].w};
#pragma unroll
    for (int q = 0; q < 4; ++q)
      if (in_grid && k0 + z < g.nz && 4 * lane + q < g.nx) a[(size_t(k0 + z) * g.ny + j) * g.nx + 4 * lane + q] = v[q];
  }
}

// Any block shape runs: v8 takes its threads in whole warps, one row each (at least one row).
template <int COLUMN, int THREADS, bool FLAGS = false>
float* run(const HeatGrid& g, float coeff, float* a, float* b, int steps, dim3 block, cudaStream_t stream) {
  if (g.interior_cells() == 0 || steps == 0) return a;
  const int rows = std::clamp(int(block.x * block.y * block.z) / 32, 1, THREADS / 32);
  const dim3 threads(32, rows, 1), boxes(blocks_for(g.ny, rows), blocks_for(g.nz, COLUMN));
  const size_t shared = size_t(COLUMN) * (rows + 2) * 32 * sizeof(float4);
  const auto kernel = resident_kernel<COLUMN, THREADS, FLAGS>;
  static const int most_shared = allow_most_shared_memory(kernel);
  const long long needed = (long long)boxes.x * boxes.y;
  const int fit = shared <= size_t(most_shared) ? resident_blocks(reinterpret_cast<const void*>(kernel), 32 * rows, shared) : 0;
  if (g.nx > kRowCells || needed > fit) {  // not on chip: the best streaming stage, in its own block shape
    static bool told = false;
    if (!told && g.nx > kRowCells)
      std::fprintf(stderr, "heat v8: rows of %d cells do not fit a warp's %d: running v5\n", g.nx, kRowCells);
    else if (!told)
      std::fprintf(stderr, "heat v8: %dx%dx%d needs %lld resident blocks, this GPU holds %d: running v5\n", g.nx, g.ny,
                   g.nz, needed, fit);
    told = true;
    tut::note_path("v8", g.nx > kRowCells ? "v5: rows longer than a warp's" : "v5: not every box resident");
    return heat_v5.run(g, coeff, a, b, steps, heat_v5.block, stream);
  }
  tut::note_path("v8", "resident: " + std::to_string(needed) + " boxes of " + std::to_string(rows) + " rows by " +
                           std::to_string(COLUMN) + " planes");
  const size_t mailboxes = 2 * size_t(g.nz) * g.ny * 32;  // float4s
  float4* mail = nullptr;
  CUDA_CHECK(cudaMallocAsync(&mail, mailboxes * sizeof(float4) + needed * sizeof(int), stream));
  int* published = reinterpret_cast<int*>(mail + mailboxes);
  CUDA_CHECK(cudaMemsetAsync(published, 0, needed * sizeof(int), stream));
  HeatGrid grid = g;
  void* args[] = {&grid, &coeff, &a, &mail, &published, &steps};
  CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), boxes, threads, args, shared, stream));
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaFreeAsync(mail, stream));
  return a;
}

// The sweep of cells per thread: boxes of 16 K cells cut three ways; and the barrier.
constexpr HeatVariant kSweep[] = {{"v8_column16", "v8, 16 rows up z per warp (64 cells a thread)", run<16, 256>, {256}, {32, 8, 1}},
                                  {"v8_column32", "v8, 32 rows up z per warp (128 cells a thread)", run<32, 128>, {128}, {32, 4, 1}},
                                  {"v8_flags", "v8, each box waits for the boxes beside it, no grid barrier", run<kColumn, kThreads, true>, {kThreads}}};

}  // namespace

const HeatCode heat_v8{run<kColumn, kThreads>, kBlock, {kThreads}, kSweep};
