// Chapter 03-poisson: several Jacobi iterations in one pass over the field, by one warp per strip
// (gpu4's passes over fields larger than 1024^2).
//
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
#pragma once
#include <string>

#include "poisson.h"

namespace poisson_strip {

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
// halo of HALO columns and rows (HALO = DEPTH; a thinner one is a mistake the tests must catch).
// Called by all 32 lanes of a warp.
template <int DEPTH, int HALO = DEPTH>
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

// A pass of gpu4 (and of the tests' wrong variants): warp `blockIdx.x` does item blockIdx.x. A
// block is one warp: its item is then the same for all its lanes as far as the compiler can
// tell, and the shuffles need no code for lanes that might have diverged.
constexpr int kStripThreads = 32;

template <int DEPTH, int HALO = DEPTH>
__global__ void __launch_bounds__(kStripThreads)
    strip_pass(int N, double h2, const double* __restrict__ f, const double* __restrict__ in, double* __restrict__ out,
               Layout layout) {
  const int item = blockIdx.x;
  if (item < layout.items()) iterate_strip<DEPTH, HALO>(N, h2, f, in, out, layout, item);
}

}  // namespace poisson_strip
