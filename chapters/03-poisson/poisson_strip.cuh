// Chapter 03-poisson: several Jacobi iterations in one pass over the field, by one warp per strip
// (gpu4 launches it once per pass, gpu5 runs all passes in one kernel).
//
// A warp owns a strip of kStripColumns = 128 columns, lane l holding columns l, l + 32, l + 64 and
// l + 96 of it (so its loads and stores are whole 256-byte rows), and walks down the strip's rows.
// It keeps, for each iteration level, the last three rows it computed in registers: from three
// rows of u (level 0) it computes iteration 1 of the middle one; three rows of level 1 give
// iteration 2 of the middle one, and so on: the levels follow each other two rows apart, and
// only level DEPTH is stored. Left and right neighbours come from the
// neighbouring lanes (one shuffle each); up and down from the registers. The source f is read
// at each level from the L1 cache (the warp read the same row a few steps before); u is read
// from L2 (__ldcg), past the L1 cache, which is not kept coherent with what other SMs wrote in an
// earlier pass of the same kernel (gpu5).
// Each iteration spoils one more column at each side of the strip (its outer neighbours are
// not there), so a strip stores only its middle kStripColumns - 2 HALO columns, and a warp that
// stores rows [first_row, first_row + rows) starts DEPTH rows above them and goes on DEPTH
// rows below: halo columns and rows, loaded and computed again by the strips and segments
// beside it, in exchange for reading and writing the field once per DEPTH iterations.
#pragma once
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

// Strips across the N interior columns, and segments of about segment_rows rows down them:
// enough items (warps) to fill the GPU `want` times over, but segments no shorter than 4 HALO
// rows, where the halo rows would cost more than the rows stored.
template <int HALO>
Layout layout_for(int N, int want_items) {
  const int columns = stored_columns<HALO>(), strips = int(blocks_for(N, columns));
  const int wanted_segments = std::max(1, want_items / strips);
  const int rows = std::max(int(blocks_for(N, wanted_segments)), std::min(N, 4 * HALO));
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
  int column[kPerLane];
  bool interior[kPerLane], stored[kPerLane];
#pragma unroll
  for (int j = 0; j < kPerLane; ++j) {
    const int offset = lane + 32 * j;  // within the strip
    column[j] = first_stored - HALO + offset;
    interior[j] = column[j] >= 1 && column[j] <= N;
    stored[j] = interior[j] && offset >= HALO && offset < HALO + layout.columns;
  }
  // Level s's last three rows, oldest first: window[s][0..2][j]. Level 0 is the rows loaded.
  double window[DEPTH][3][kPerLane] = {};
  // Step y loads row y and computes level s (1 .. DEPTH) of row y - 2s, from level s - 1's rows
  // y - 2s - 1 .. y - 2s + 1, which the three steps before this one computed: no level waits for
  // another within a step, so the warp's DEPTH levels overlap, and a row loaded at step y is
  // first used at step y + 1 (its load has a step to arrive).
  for (int y = max(0, first_row - HALO); y <= last_row + 2 * DEPTH; ++y) {
    double row[kPerLane];  // level 0 of row y (nothing below the bottom boundary)
#pragma unroll
    for (int j = 0; j < kPerLane; ++j)
      row[j] = y <= N + 1 && column[j] >= 0 && column[j] <= N + 1 ? __ldcg(in + size_t(y) * w + column[j]) : 0.0;
    // From the deepest level up, so that a level's window moves on only after the level above
    // it has read it.
#pragma unroll
    for (int s = DEPTH; s >= 1; --s) {
      const int r = y - 2 * s;
      const bool row_interior = r >= 1 && r <= N;
      const double* f_row = f + size_t(max(r, 0)) * w;
      const double(&below)[3][kPerLane] = window[s - 1];  // level s - 1's rows r - 1, r, r + 1
      double next[kPerLane];
#pragma unroll
      for (int j = 0; j < kPerLane; ++j) {
        // The left neighbour of (lane, j) is lane - 1's column j, or lane 31's column j - 1 for
        // lane 0: each lane offers what the lane after it needs (lane 31 its column j - 1).
        const double offer_left = lane == 31 ? below[1][j > 0 ? j - 1 : 0] : below[1][j];
        const double offer_right = lane == 0 ? below[1][j < kPerLane - 1 ? j + 1 : j] : below[1][j];
        const double left = __shfl_sync(0xffffffffu, offer_left, (lane + 31) % 32);
        const double right = __shfl_sync(0xffffffffu, offer_right, (lane + 1) % 32);
        const bool update = row_interior && interior[j];
        // Boundary points keep their value at every level; halo columns beyond the strip's reach
        // compute garbage that no stored point depends on.
        next[j] = update ? 0.25 * (left + right + below[0][j] + below[2][j] + h2 * __ldg(f_row + column[j])) : below[1][j];
      }
      if (s == DEPTH) {  // level DEPTH of row r: the pass's result
        if (r >= first_row && r <= last_row) {
#pragma unroll
          for (int j = 0; j < kPerLane; ++j)
            if (stored[j]) out[size_t(r) * w + column[j]] = next[j];
        }
      } else {
#pragma unroll
        for (int j = 0; j < kPerLane; ++j) {
          window[s][0][j] = window[s][1][j];
          window[s][1][j] = window[s][2][j];
          window[s][2][j] = next[j];
        }
      }
    }
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      window[0][0][j] = window[0][1][j];
      window[0][1][j] = window[0][2][j];
      window[0][2][j] = row[j];
    }
  }
}

}  // namespace poisson_strip
