// Exercise skeleton generated from solutions/01-heat/v6_temporal.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// heat v6: temporal blocking, up to DEPTH = 8 steps fused into one wavefront up z.
//   run:  build-ex/chapters/01-heat/heat3d --size 512 --steps 1000 --stage v5,v6
//   test: meson test -C build-ex heat-v6 heat-v6-idea --print-errorlogs
// Change from v5: one pass over memory runs DEPTH steps, and no cell is computed twice.
// Each block owns one x-y tile (64 x 32 cells, 8 per thread up y) for the whole height of the
// field, and all the blocks march up z together, one plane per iteration. Level 0 is the field
// as it was (planes loaded from memory); level l is the field after l steps. In iteration n,
// level l computes its plane n - 2l from level l - 1's planes n - 2l - 1, n - 2l and n - 2l + 1,
// which were all finished in earlier iterations: the levels are two planes apart, so the levels
// of one iteration do not wait for each other. The last level goes to memory. Each level keeps
// its last planes in shared memory (with a ring of one cell around the tile), and the only
// values a tile needs from its neighbours are their edge rows and columns: after computing, a
// block writes its edges to a small buffer in L2, the whole grid meets at one barrier
// (cooperative_groups' grid.sync()), and the block copies its neighbours' edges into its
// rings, asynchronously, while the next iteration computes; they are needed one iteration later.
// Why it should help: each cell is read from DRAM and written once per pass, so the bytes per
// update fall to 8 / DEPTH, and unlike overlapped tiles (the first v6, in the lesson's H200
// tables: 32 x 32 threads, 26 x 26 cells written at depth 3) no update is thrown away.
// What still limits it: one grid barrier per plane (heat3d notes what one costs) and the
// instructions around it (about 28 per update), with 8 warps per SM to hide their latency: one
// block of 256 threads and 219 KiB of shared memory fills an SM. A tile's SM then updates about
// 2048 x 8 cells per iteration of about 4 us, whatever the plane's size, so the wavefront only
// beats v5's streaming where most SMs hold a tile: v6 runs it where the tiles, discounted by
// the planes a pass spends filling and draining its levels, keep two thirds of the SMs busy (the
// lesson's size sweep), and v5 elsewhere: a small plane (128 x 128: 8 tiles) or more tiles than
// the GPU holds at once (512 x 512 is 128 tiles, about what an H100 or H200 holds), saying so
// once. Learned from EBISU (Zhang et al., ICS 2023, github.com/neozhang307/EBISU-ICS23).
#include <cooperative_groups.h>
#include <cuda_pipeline.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "check.h"
#include "heat.h"
#include "path_taken.h"
#include "stress.h"

namespace cg = cooperative_groups;

namespace {

constexpr dim3 kBlock{64, 4, 1};  // 2 warps along a row of 64 cells, 4 rows of threads
constexpr int kCells = 8;         // cells a thread updates, up y: the tile is 64 x 32
constexpr int kLevel0Planes = 4;  // level 0's planes in shared memory (loaded one iteration ahead)
constexpr int kLevelPlanes = 3;   // the planes every other level keeps
constexpr int kMostDepth = 8;

// The planes in shared memory, each with a ring of one cell around the tile. In iteration n,
// at(level, m, ...) is level's plane n + m, at the tile's cell (0, 0): slots in turn, found from
// n mod 3 and n mod 4 (m is known when compiling: no division per plane).
struct Planes {
  float* base;
  int pitch, plane_cells;
  __device__ float* at(int level, int m, int n_mod3, int n_mod4) const {
    int slot;
    if (level == 0) {
      slot = int((unsigned(n_mod4) + unsigned(m % kLevel0Planes + kLevel0Planes)) % kLevel0Planes);
    } else {
      const int in_ring = n_mod3 + (m % kLevelPlanes + kLevelPlanes) % kLevelPlanes;
      slot = kLevel0Planes + kLevelPlanes * (level - 1) + (in_ring >= kLevelPlanes ? in_ring - kLevelPlanes : in_ring);
    }
    return base + slot * plane_cells + pitch + 1;
  }
};

// The edges a block publishes, per level below the last, for the two parities of the
// iteration: south (its first row), north (its last row), west and east (first, last column).
enum Side { kSouth, kNorth, kWest, kEast };

// DEPTH, BX, ROWS: the steps fused and the block's shape where they are known when compiling
// (the lesson's passes, whose offsets in shared memory become constants); 0: read them from the
// launch (any --block shape, and the last, shallower pass).
template <int DEPTH, int BX, int ROWS>
__global__ void __launch_bounds__(256, 1)
    wavefront_kernel(const HeatGrid g, const float coeff, const float* __restrict__ in, float* __restrict__ out,
                     float* __restrict__ edges, const int depth_asked) {
  cg::grid_group grid = cg::this_grid();
  extern __shared__ float shared[];
  const int depth = DEPTH ? DEPTH : depth_asked;
  const int tile_x = BX ? BX : int(blockDim.x), rows = ROWS ? ROWS : int(blockDim.y * blockDim.z);
  const int tile_y = rows * kCells, threads = tile_x * rows;
  const int tx = threadIdx.x, row = threadIdx.z * blockDim.y + threadIdx.y, me = row * tile_x + tx;
  const Planes planes{shared, tile_x + 2, (tile_x + 2) * (tile_y + 2)};
  const int x0 = blockIdx.x * tile_x, y0 = blockIdx.y * tile_y;  // the tile's first cell
  const int i = x0 + tx, j0 = y0 + row * kCells, plane = g.nx * g.ny;
  const int mine = (row * kCells) * planes.pitch + tx;  // my first cell in a plane of shared memory
  float* const my_out = out + j0 * g.nx + i;            // and in plane 0 of the field

  // Each update is keep * centre + weight * (sum of the 6 neighbours), keep = 1 - 6 weight, with
  // weight 0 on the boundary (and outside the grid): no branch per cell. It needs every value
  // in shared memory to be finite, so the planes start at 0, and what is never loaded stays 0.
  float weight[kCells], keep[kCells];
#pragma unroll
  for (int c = 0; c < kCells; ++c) {
    weight[c] = i >= 1 && i <= g.nx - 2 && j0 + c >= 1 && j0 + c <= g.ny - 2 ? coeff : 0.0f;
    keep[c] = 1.0f - 6.0f * weight[c];
  }
  const int all_planes = kLevel0Planes + kLevelPlanes * (depth - 1);
  for (int h = me; h < all_planes * planes.plane_cells; h += threads) shared[h] = 0.0f;
  __syncthreads();

  // Edges of 4 sides, each a multiple of 4 floats long: the columns go out as float4s.
  const int edge = (max(tile_x, tile_y) + 3) / 4 * 4, level_edges = gridDim.x * gridDim.y * 4 * edge;
  const auto edges_of = [&](int parity, int level) { return edges + (parity * (depth - 1) + level - 1) * level_edges; };
  float* const my_edges = edges + (blockIdx.y * gridDim.x + blockIdx.x) * 4 * edge;

  // Level 0's plane p, ring included, into shared memory: asynchronous copies.
  const auto load_plane = [&](int p, float* to) {
    if (p >= g.nz) return;
    to -= planes.pitch + 1;  // the ring's first cell
    const float* const from = in + size_t(p) * plane;
    const int step_x = threads % planes.pitch, step_y = threads / planes.pitch;
    for (int h = me, hx = me % planes.pitch, hy = me / planes.pitch; h < planes.plane_cells; h += threads) {
      const int x = x0 - 1 + hx, y = y0 - 1 + hy;
      if (x >= 0 && y >= 0 && x < g.nx && y < g.ny) __pipeline_memcpy_async(to + h, from + y * g.nx + x, sizeof(float));
      hx += step_x, hy += step_y;
      if (hx >= planes.pitch) hx -= planes.pitch, ++hy;
    }
  };
  // The ring's cells, 2 (tile_x + tile_y) of them, are shared out over the threads: cell h goes
  // to `ring` in the plane, from `from` in the edges of a level (-1: the ring lies on the boundary).
  struct RingCell {
    int ring, from;
  };
  const int ring_cells = 2 * (tile_x + tile_y);
  const auto ring_cell = [&](int h) {
    int dx = 0, dy = 0, side, at, ring;  // the neighbour, its edge, the cell on it, where it goes
    if (h < tile_x) dy = -1, side = kNorth, at = h, ring = -planes.pitch + h;
    else if (h < 2 * tile_x) dy = 1, side = kSouth, at = h - tile_x, ring = tile_y * planes.pitch + at;
    else if (h < 2 * tile_x + tile_y) dx = -1, side = kEast, at = h - 2 * tile_x, ring = at * planes.pitch - 1;
    else dx = 1, side = kWest, at = h - 2 * tile_x - tile_y, ring = at * planes.pitch + tile_x;
    const int bx = int(blockIdx.x) + dx, by = int(blockIdx.y) + dy;
    const bool beyond = bx < 0 || by < 0 || bx >= int(gridDim.x) || by >= int(gridDim.y);
    return RingCell{ring, beyond ? -1 : ((by * int(gridDim.x) + bx) * 4 + side) * edge + at};
  };
  // In the lesson's block every thread has at most one ring cell, worked out once.
  constexpr bool kOneRingCell = BX && 2 * (BX + ROWS * kCells) <= BX * ROWS;
  const RingCell my_ring_cell = ring_cell(me < ring_cells ? me : 0);
  // The neighbours' edges of level l's plane q into its ring: asynchronous copies.
  const auto fetch_ring = [&](int level, float* to, int parity) {
    const float* const from = edges_of(parity, level);
    if constexpr (kOneRingCell) {
      if (me < ring_cells && my_ring_cell.from >= 0)
        __pipeline_memcpy_async(to + my_ring_cell.ring, from + my_ring_cell.from, sizeof(float));
    } else {
      for (int h = me; h < ring_cells; h += threads) {
        const RingCell cell = ring_cell(h);
        if (cell.from >= 0) __pipeline_memcpy_async(to + cell.ring, from + cell.from, sizeof(float));
      }
    }
  };

  load_plane(0, planes.at(0, 0, 0, 0));
  __pipeline_commit();
  const int iterations = g.nz + 2 * depth;  // until the last level has reached plane nz - 1
  // Level l's last two planes in my own column, the newest first: level l + 1's plane above its
  // middle one, and the middle one (level 0 has none: its planes come from shared memory).
  float newest[kMostDepth][2][kCells] = {};
  for (int n = 0; n < iterations; ++n) {
    const int n_mod3 = n % 3, n_mod4 = n % 4;
    // The edges go to one of two buffers by the iteration's parity: a block may publish the
    // next iteration's edges while a slower neighbour still copies these. (The stress suite's
    // build with one buffer, removed("second_edge_buffer"), must fail.)
    const int parity = tut::stress::removed("second_edge_buffer") ? 0 : n & 1;
    // From the last level down: level l + 1 reads level l's plane n - 2l - 3 (the one below its
    // middle plane, from shared memory, in my own column) before level l overwrites it.
#pragma unroll
    for (int level = DEPTH ? DEPTH : kMostDepth; level >= 1; --level) {
      if (level > depth) continue;
      const int q = n - 2 * level;
      if (q >= 0 && q < g.nz) {
        const float *below = planes.at(level - 1, -2 * level - 1, n_mod3, n_mod4) + mine,
                    *centre = planes.at(level - 1, -2 * level, n_mod3, n_mod4) + mine,
                    *above_shared = planes.at(level - 1, -2 * level + 1, n_mod3, n_mod4) + mine;
        const bool plane_interior = q >= 1 && q <= g.nz - 2;
        float column[kCells + 2], above[kCells];  // level - 1: my cells and one more at each end up y; above them
        column[0] = centre[-planes.pitch];
        column[kCells + 1] = centre[kCells * planes.pitch];
#pragma unroll
        for (int c = 0; c < kCells; ++c) {
          column[c + 1] = level == 1 ? centre[c * planes.pitch] : newest[level - 2][1][c];
          above[c] = level == 1 ? above_shared[c * planes.pitch] : newest[level - 2][0][c];
        }
        float next[kCells];
#pragma unroll
        for (int c = 0; c < kCells; ++c) {
          const int o = c * planes.pitch;
          const float w = plane_interior ? weight[c] : 0.0f, k = plane_interior ? keep[c] : 1.0f;
          // TODO(exercise): advance my cell c one step, from level - 1 to level: column[c + 1] is its
          //   value, column[c] and column[c + 2] its neighbours up y, centre[o - 1] and
          //   centre[o + 1] up x, below[o] and above[c] up z; w, k: its weight and keep
          next[c] = column[c + 1];
        }
        if (level == depth) {  // the pass's result
#pragma unroll
          for (int c = 0; c < kCells; ++c)
            if (plane_interior && weight[c] != 0.0f) my_out[size_t(q) * plane + c * g.nx] = next[c];
          continue;
        }
        float* const mine_next = planes.at(level, -2 * level, n_mod3, n_mod4) + mine;
#pragma unroll
        for (int c = 0; c < kCells; ++c) mine_next[c * planes.pitch] = next[c];
        float* const published = my_edges + (parity * (depth - 1) + level - 1) * level_edges;
        if (row == 0) published[kSouth * edge + tx] = next[0];
        if (row == rows - 1) published[kNorth * edge + tx] = next[kCells - 1];
        const auto column_out = [&](Side side) {
          float4* const to = reinterpret_cast<float4*>(published + side * edge + row * kCells);
#pragma unroll
          for (int c = 0; c < kCells; c += 4) to[c / 4] = make_float4(next[c], next[c + 1], next[c + 2], next[c + 3]);
        };
        if (tx == 0) column_out(kWest);
        if (tx == tile_x - 1) column_out(kEast);
#pragma unroll
        for (int c = 0; c < kCells; ++c) newest[level - 1][1][c] = newest[level - 1][0][c], newest[level - 1][0][c] = next[c];
      } else if (level < depth) {  // no plane q: still move on, so that the planes stay in step
#pragma unroll
        for (int c = 0; c < kCells; ++c) newest[level - 1][1][c] = newest[level - 1][0][c];
      }
    }
    __pipeline_wait_prior(0);  // my copies for this iteration have landed,
    grid.sync();               // and every block's edges of this iteration are out
    tut::stress::pause_if((blockIdx.x + blockIdx.y) % 2 == 1);  // stress builds: half the blocks fetch late
    load_plane(n + 1, planes.at(0, 1, n_mod3, n_mod4));  // needed from iteration n + 1 on
#pragma unroll
    for (int level = 1; level < (DEPTH ? DEPTH : kMostDepth); ++level) {
      const int q = n - 2 * level;  // needed from iteration n + 2 on, as level + 1's middle plane
      if (level < depth && q >= 0 && q < g.nz) fetch_ring(level, planes.at(level, -2 * level, n_mod3, n_mod4), parity);
    }
    __pipeline_commit();
  }
}

// Whether the wavefront keeps enough SMs busy to beat v5: tiles x nz / (nz + 2 depth) (a pass
// spends 2 depth of its nz + 2 depth iterations filling and draining its levels) against two
// thirds of the SMs (on an H200, 72 tiles of 64 x 32 lost to v5 by 0.85x, 98 beat it by 1.10x).
bool busy_enough(const HeatGrid& g, long long tiles, int depth) {
  return 3.0 * tiles * g.nz / (g.nz + 2 * depth) >= 2.0 * tut::multiprocessor_count();
}

// CHOOSES: v6 as the lesson runs it, v5 where the wavefront would be slower; the variants run
// the wavefront wherever its tiles are resident (the tests', and the sweep's, way to reach it).
template <int DEPTH, bool CHOOSES = false>
float* run(const HeatGrid& g, float coeff, float* a, float* b, int steps, dim3 block, cudaStream_t stream) {
  if (g.interior_cells() == 0 || steps == 0) return a;
  const auto lessons = wavefront_kernel<DEPTH, kBlock.x, kBlock.y>, any = wavefront_kernel<0, 0, 0>;
  static const int most_shared = std::min(allow_most_shared_memory(lessons), allow_most_shared_memory(any));
  const int rows = int(block.y * block.z), tile_y = rows * kCells;
  const dim3 tiles(blocks_for(g.nx, block.x), blocks_for(g.ny, tile_y));
  const size_t plane_bytes = (block.x + 2) * (tile_y + 2) * sizeof(float);
  const auto shared_for = [&](int depth) { return (kLevel0Planes + kLevelPlanes * (depth - 1)) * plane_bytes; };
  // A tall or wide block keeps fewer levels: as many as shared memory holds.
  int depth = DEPTH;
  while (depth > 1 && shared_for(depth) > size_t(most_shared)) --depth;
  const bool lessons_block = block.x == kBlock.x && block.y == kBlock.y && block.z == 1 && depth == DEPTH;
  const int fit = resident_blocks(reinterpret_cast<const void*>(lessons_block ? lessons : any),
                                  int(block.x * block.y * block.z), shared_for(depth));
  const long long tile_count = (long long)tiles.x * tiles.y;
  const bool resident = tile_count <= fit, pays = !CHOOSES || busy_enough(g, tile_count, depth);
  if (!resident || !pays) {  // the best one-step stage
    const std::string why = std::to_string(tile_count) + " tiles, " +
                            (resident ? "too few to keep the SMs busy" : std::to_string(fit) + " resident");
    static bool told = false;
    if (!told) std::fprintf(stderr, "heat v6: %dx%dx%d has %s: running v5\n", g.nx, g.ny, g.nz, why.c_str());
    told = true;
    tut::note_path("v6", "v5: " + why);
    return heat_v5.run(g, coeff, a, b, steps, heat_v5.block, stream);
  }
  // The passes below, for the tests: whole ones of DEPTH steps take the lesson's kernel.
  const int whole = steps / depth, rest = steps % depth ? 1 : 0, lessons_passes = lessons_block ? whole : 0;
  tut::note_path("v6", "wavefront of depth " + std::to_string(depth) + " on " + std::to_string(tiles.x * tiles.y) +
                           " tiles: " + std::to_string(lessons_passes) + " passes of the lesson's kernel, " +
                           std::to_string(whole + rest - lessons_passes) + " of the generic one");
  const int edge = (std::max(int(block.x), tile_y) + 3) / 4 * 4;
  float* edges = nullptr;
  CUDA_CHECK(cudaMallocAsync(&edges, 2 * std::max(depth - 1, 1) * size_t(tiles.x) * tiles.y * 4 * edge * sizeof(float),
                             stream));
  // TODO(exercise): run `steps` steps in passes of `depth` fused steps; the last pass fuses what is left

  CUDA_CHECK(cudaFreeAsync(edges, stream));
  return a;
}

// The wavefront at every size its tiles fit, and the sweep of fusion depths that chose DEPTH = 8
// (see the lesson).
constexpr BlockLimits kLimits{256};  // __launch_bounds__(256): registers for 256 threads
constexpr HeatVariant kSweep[] = {{"v6_wavefront", "v6, the wavefront wherever its tiles fit", run<kMostDepth>, kLimits},
                                  {"v6_depth2", "v6, 2 steps fused", run<2>, kLimits},
                                  {"v6_depth4", "v6, 4 steps fused", run<4>, kLimits},
                                  {"v6_depth6", "v6, 6 steps fused", run<6>, kLimits}};

}  // namespace

const HeatCode heat_v6{run<kMostDepth, true>, kBlock, kLimits, kSweep};
