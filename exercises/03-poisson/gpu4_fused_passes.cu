// Exercise skeleton generated from solutions/03-poisson/gpu4_fused_passes.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// poisson gpu4: several iterations per pass (temporal blocking in 2D).
//   run:  build-ex/chapters/03-poisson/jacobi gpu4 8192 1000 [--depth 8]
//   test: meson test -C build-ex poisson-gpu4 --print-errorlogs
// Change from gpu3: a pass over the field does `depth` iterations, not one, so each point of u
// is read and written once per pass: the bytes per update fall from 24 to about (8 + 8 + 8) /
// depth, plus the halo (points computed again by the neighbouring tile or strip). Two shapes:
//   fields up to 1024^2: a block of 32 x 32 threads iterates its tile in shared memory, a
//   barrier after each iteration (depth 4: 24 x 24 stored of 32 x 32);
//   larger fields: one warp per strip of 128 columns walks down its rows and keeps, for every
//   iteration level, the last rows it computed in registers (depth 8: 112 columns stored of
//   128, each segment of rows starts `depth` rows early, ends `depth` late).
// Why it should help: from 2048^2, gpu2 and gpu3 read and write memory at the copy rate: the
// only way past that roof is to move fewer bytes per update. Below, the fields sit in L2 and
// gpu3 waits on a launch and a pass per iteration; a tile's iteration waits only on a barrier.
// What still limits it (H100): in strips, 252 registers, 8 warps per SM, latency-bound (3.2
// bytes per update at 8192^2, DRAM a third busy): the level registers shifted by moves, the
// shuffles, rows worked one after another. In tiles, 1.8x the points computed for those stored,
// and no unit full at 1024^2 (shared memory 62%): barriers and loads share the stalls. The
// strips were the slower below 2048^2 (too few warps to hide their latency), the tiles above.
// The depth is a compile-time size: 2, 4, 8 or 16 (--depth; tiles up to 8); by default 4 in
// tiles, 8 in strips. Iteration counts it does not divide end with shallower passes.
#include <algorithm>

#include "check.h"
#include "poisson.h"
#include "stress.h"

namespace {

// The halo of a pass of DEPTH iterations: DEPTH points (columns and rows), as each iteration
// spoils one more ring at a tile's or strip's edge. (The stress suite's build without its last
// ring, removed("halo_ring"), must fail the tests.)
template <int DEPTH>
__host__ __device__ constexpr int halo() {
  return tut::stress::removed("halo_ring") && DEPTH > 1 ? DEPTH - 1 : DEPTH;
}

// --- Tiles: fields up to kTilesUpTo^2 ---------------------------------------------------------
// A block of kTile x kTile threads, one point each, loads its tile of u into shared memory and
// does DEPTH iterations there, with a barrier after each: a point's four neighbours are a
// shared-memory read away, and the only wait per iteration is the barrier, where a strip's warp
// waits for its rows one after another. Each iteration spoils one more ring of points at the
// tile's edge (their outer neighbours are not in the tile), so a tile stores only its middle
// kTile - 2 HALO points in each direction: tiles overlap by the halo, 2 HALO points wide.

constexpr int kTile = 32;  // 32 x 32 threads: 1024, the most a block may have

// The fields that go in tiles, and the depth each kind of pass does best (measured on an H200,
// 1000 iterations, results/h200_tiles_or_strips.csv: tiles of depth 4 ran 1.6x strips of depth 8
// at 1024^2, strips 1.15x tiles at 2048^2; tiles of depth 8 store a quarter of what they
// compute, 16 nothing).
constexpr int kTilesUpTo = 1024;
constexpr int kTileDepth = 4, kStripDepth = 8;
int fused_depth(int N) {
  return N <= kTilesUpTo ? kTileDepth : kStripDepth;
}

template <int HALO>
__host__ __device__ constexpr int stored_side() {
  return kTile - 2 * HALO;
}

// Tiles along each side of the N x N interior (a pass has the square of it).
template <int HALO>
__host__ __device__ int tiles_per_side(int N) {
  return (N + stored_side<HALO>() - 1) / stored_side<HALO>();
}

// This iteration's tile and the next one's, in shared memory: one pair for every depth a kernel's
// passes use (each instantiation of iterate_tile declaring its own would add them up).
using Levels = double[2][kTile][kTile + 1];
__device__ inline Levels& shared_levels() {
  __shared__ Levels levels;
  return levels;
}

// DEPTH iterations on tile (tile_x, tile_y) from `in` to `out`, with a halo of HALO points
// (halo<DEPTH>()). Called by all kTile x kTile threads of a block.
template <int DEPTH, int HALO = halo<DEPTH>()>
__device__ void iterate_tile(int N, double h2, const double* __restrict__ f, const double* __restrict__ in,
                             double* __restrict__ out, int tile_x, int tile_y) {
  static_assert(stored_side<HALO>() > 0, "a tile must store some points");
  Levels& levels = shared_levels();
  const int tx = threadIdx.x, ty = threadIdx.y, w = N + 2;
  const int x = 1 + tile_x * stored_side<HALO>() - HALO + tx;
  const int y = 1 + tile_y * stored_side<HALO>() - HALO + ty;
  const bool in_field = x >= 0 && x <= N + 1 && y >= 0 && y <= N + 1;
  const bool interior = x >= 1 && x <= N && y >= 1 && y <= N;
  const bool inner = tx > 0 && tx < kTile - 1 && ty > 0 && ty < kTile - 1;  // all four neighbours in the tile
  const bool update = interior && inner;  // boundary points keep their value, as do the tile's edges (halo)
  const size_t at = size_t(min(max(y, 0), N + 1)) * w + min(max(x, 0), N + 1);  // inside the field, used or not
  double v = in_field ? __ldcg(in + at) : 0.0;  // u through L2, past L1, as the strips read it
  const double source = update ? h2 * __ldg(f + at) : 0.0;
  levels[0][ty][tx] = v;
  __syncthreads();
#pragma unroll
  for (int s = 0; s < DEPTH; ++s) {
    const auto& now = levels[s % 2];
    if (update) v = 0.25 * ((now[ty][tx - 1] + now[ty][tx + 1]) + (now[ty - 1][tx] + now[ty + 1][tx]) + source);
    if (s + 1 < DEPTH) {
      levels[(s + 1) % 2][ty][tx] = v;  // the other buffer: its last readers passed the previous barrier
      __syncthreads();
    }
  }
  const bool stored = interior && tx >= HALO && tx < kTile - HALO && ty >= HALO && ty < kTile - HALO;
  if (stored) out[at] = v;
}

// A pass: block (x, y) does tile (x, y).
template <int DEPTH, int HALO = halo<DEPTH>()>
__global__ void __launch_bounds__(kTile * kTile)
    tile_pass(int N, double h2, const double* __restrict__ f, const double* __restrict__ in, double* __restrict__ out) {
  iterate_tile<DEPTH, HALO>(N, h2, f, in, out, blockIdx.x, blockIdx.y);
}

// --- Strips: larger fields ----------------------------------------------------------------------
// A warp owns a strip of kStripColumns = 128 columns, lane l holding columns 4l .. 4l + 3 of it,
// and walks down the strip's rows. It loads a row of u (level 0) and, with the two rows before it that it kept in registers,
// computes iteration 1 of the row above; that row, with its two neighbours at level 1, gives
// iteration 2 one row higher, and so on: after DEPTH levels, iteration DEPTH of the row DEPTH
// rows up is done, and only that is stored. Up and down neighbours come from the registers, left
// and right from the lane's own columns, but for its first and last: two shuffles per row and
// level for four points. The next row is loaded a step ahead; its source f is kept for
// iteration 1, and read again by the deeper levels from the L1 cache (the warp read the same row
// a few steps before); u is read from L2 (__ldcg), past the L1 cache, which would not see what
// other SMs wrote in an earlier pass if the passes ran in one kernel (each of gpu4's passes is a
// launch of its own, after which either read is right).
// Each iteration spoils one more column at each side of the strip (its outer neighbours are
// not there), so a strip stores only its middle kStripColumns - 2 HALO columns, and a warp that
// stores rows [first_row, first_row + rows) starts DEPTH rows above them and goes on DEPTH
// rows below: halo columns and rows, loaded and computed again by the strips and segments
// beside it, in exchange for reading and writing the field once per DEPTH iterations.

constexpr int kStripColumns = 128;  // 32 lanes x 4 columns
constexpr int kPerLane = kStripColumns / 32;

// Columns a strip stores (the rest is its halo), and rows it stores per segment.
template <int HALO>
__host__ __device__ constexpr int stored_columns() {
  return kStripColumns - 2 * HALO;
}

// Where one warp works: the strip and segment of item `item` of a pass. A strip stores
// `columns` columns (at most stored_columns<HALO>() of the pass's halo), a segment `segment_rows` rows.
struct Layout {
  int columns, strips, segments, segment_rows;
  __host__ __device__ int items() const { return strips * segments; }
};

// Strips across the N interior columns, and segments down them: about `want_items` items (the
// warps the GPU holds at once), but segments no shorter than HALO rows (below that, each warp
// would load and compute more halo rows than it stores).
template <int HALO>
Layout layout_for(int N, int want_items) {
  const int columns = stored_columns<HALO>(), strips = int(blocks_for(N, columns));
  const int wanted_segments = std::max(1, want_items / strips);
  const int rows = std::max(int(blocks_for(N, wanted_segments)), std::min(N, HALO));
  return {columns, strips, int(blocks_for(N, rows)), rows};
}

// DEPTH iterations on the rows and columns of `item` that it stores, from `in` to `out`, with a
// halo of HALO columns and rows (halo<DEPTH>()).
// Called by all 32 lanes of a warp.
template <int DEPTH, int HALO = halo<DEPTH>()>
__device__ void iterate_strip(int N, double h2, const double* __restrict__ f, const double* __restrict__ in,
                              double* __restrict__ out, const Layout& layout, int item) {
  const int lane = threadIdx.x % 32, w = N + 2;
  const int strip = item % layout.strips, segment = item / layout.strips;
  const int first_stored = 1 + strip * layout.columns;  // the strip's first stored column
  const int first_row = 1 + segment * layout.segment_rows;
  const int last_row = min(first_row + layout.segment_rows, N + 1) - 1;  // the segment's last stored row
  // Every address is made inside the field (reach, and rows clamped to 0 .. N + 1), even where
  // the value is not used: the compiler may issue a load before the test that discards it.
  int column[kPerLane], reach[kPerLane];
  bool interior[kPerLane], stored[kPerLane];
#pragma unroll
  for (int j = 0; j < kPerLane; ++j) {
    const int offset = kPerLane * lane + j;  // within the strip
    column[j] = first_stored - HALO + offset;
    reach[j] = min(max(column[j], 0), N + 1);
    interior[j] = column[j] >= 1 && column[j] <= N;
    stored[j] = interior[j] && offset >= HALO && offset < HALO + layout.columns;
  }
  // Level 0 of a row (u as loaded; nothing below the bottom boundary), and its source f.
  const auto load_row = [&](int y, double (&u_out)[kPerLane], double (&f_out)[kPerLane]) {
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      const bool inside = y <= N + 1 && column[j] == reach[j];
      const size_t at = size_t(min(y, N + 1)) * w + reach[j];
      u_out[j] = inside ? __ldcg(in + at) : 0.0;
      f_out[j] = inside ? __ldg(f + at) : 0.0;
    }
  };
  // Level s's rows r - 1 and r (above[s], here[s]) while level s's row r + 1 arrives.
  double above[DEPTH][kPerLane] = {}, here[DEPTH][kPerLane] = {};
  // The next row is loaded a step ahead, so that its loads are in flight while this row's
  // levels are computed; level 1 takes its f from there too (the deeper levels from L1).
  const int first_y = max(0, first_row - HALO);
  double u_ahead[kPerLane], f_ahead[kPerLane], f_here[kPerLane] = {};
  load_row(first_y, u_ahead, f_ahead);
  for (int y = first_y; y <= last_row + DEPTH; ++y) {
    double row[kPerLane], f_level1[kPerLane];  // level 0 of row y; f of row y - 1
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      row[j] = u_ahead[j];
      f_level1[j] = f_here[j];
      f_here[j] = f_ahead[j];
    }
    load_row(y + 1, u_ahead, f_ahead);
#pragma unroll
    for (int s = 0; s < DEPTH; ++s) {
      // Level s + 1 of row r = y - s - 1 from level s's rows r - 1, r and r + 1 (= row).
      const int r = y - s - 1;
      const bool row_interior = r >= 1 && r <= N;
      const double* f_row = f + size_t(min(max(r, 0), N + 1)) * w;  // deeper levels' f: level 1 read it a few steps ago
      // The columns beside the lane's four: the last of the lane before, the first of the lane
      // after (at the strip's edges, a lane's own: garbage, in the halo).
      const double from_left = __shfl_up_sync(0xffffffffu, here[s][kPerLane - 1], 1);
      const double from_right = __shfl_down_sync(0xffffffffu, here[s][0], 1);
      double next[kPerLane];
#pragma unroll
      for (int j = 0; j < kPerLane; ++j) {
        const double left = j == 0 ? from_left : here[s][j - 1];
        const double right = j == kPerLane - 1 ? from_right : here[s][j + 1];
        const bool update = row_interior && interior[j];
        // Boundary points keep their value at every level; halo columns beyond the strip's reach
        // compute garbage that no stored point depends on.
        const double source = s == 0 ? f_level1[j] : __ldg(f_row + reach[j]);
        next[j] = update ? 0.25 * ((left + right) + (above[s][j] + row[j]) + h2 * source) : here[s][j];
      }
#pragma unroll
      for (int j = 0; j < kPerLane; ++j) {  // after all four: column j + 1 read here[s][j]
        above[s][j] = here[s][j];
        here[s][j] = row[j];
        row[j] = next[j];
      }
    }
    // row: level DEPTH of row y - DEPTH.
    const int r = y - DEPTH;
    if (r >= first_row && r <= last_row) {
#pragma unroll
      for (int j = 0; j < kPerLane; ++j)
        if (stored[j]) out[size_t(r) * w + column[j]] = row[j];
    }
  }
}

// A pass: warp `blockIdx.x` does item blockIdx.x. A
// block is one warp: its item is then the same for all its lanes as far as the compiler can
// tell, and the shuffles need no code for lanes that might have diverged.
constexpr int kStripThreads = 32;

template <int DEPTH, int HALO = halo<DEPTH>()>
__global__ void __launch_bounds__(kStripThreads)
    strip_pass(int N, double h2, const double* __restrict__ f, const double* __restrict__ in, double* __restrict__ out,
               Layout layout) {
  const int item = blockIdx.x;
  if (item < layout.items()) iterate_strip<DEPTH, HALO>(N, h2, f, in, out, layout, item);
}

// One pass of DEPTH iterations from cur into next; then next is the newest.
template <int DEPTH>
void pass(const PoissonGrid& g, const double* f, double*& cur, double*& next, cudaStream_t stream) {
  if constexpr (stored_side<halo<DEPTH>()>() >= kTile / 2) {
    if (g.N <= kTilesUpTo) {
      const int side = tiles_per_side<halo<DEPTH>()>(g.N);
      tile_pass<DEPTH><<<dim3(side, side), dim3(kTile, kTile), 0, stream>>>(g.N, g.h() * g.h(), f, cur, next);
      CUDA_CHECK_LAUNCH();
      std::swap(cur, next);
      return;
    }
  }
  // As many strips x segments as warps the GPU holds at once: one wave, the rows shared evenly.
  static const int resident = tut::resident_blocks(reinterpret_cast<const void*>(strip_pass<DEPTH>), kStripThreads, 0);
  const Layout layout = layout_for<halo<DEPTH>()>(g.N, resident);
  strip_pass<DEPTH><<<layout.items(), kStripThreads, 0, stream>>>(g.N, g.h() * g.h(), f, cur, next, layout);
  CUDA_CHECK_LAUNCH();
  std::swap(cur, next);
}

// Passes of DEPTH, then what DEPTH leaves of count - 1 in passes of its binary digits (4, 2, 1:
// each shallower pass has its own thinner halo), and a last pass of one iteration: it leaves the
// field before it in `next`, so that the tolerance check measures one iteration's change.
template <int DEPTH>
void advance(const PoissonGrid& g, const double* f, double*& cur, double*& next, int count, cudaStream_t stream) {
  // TODO(exercise): `count` iterations in the passes the comment above describes
}

PoissonSolve at_depth(int depth) {
  return solve_at_depth<iterate_on_device<advance<2>>, iterate_on_device<advance<4>>, iterate_on_device<advance<8>>,
                        iterate_on_device<advance<16>>>("gpu4", depth);
}

}  // namespace

const PoissonCode poisson_gpu4{solve_at_chosen_depth<fused_depth, at_depth>, fused_depth, at_depth};
