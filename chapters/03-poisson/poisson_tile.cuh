// Chapter 03-poisson: several Jacobi iterations in one pass over a small field, by one block per
// tile in shared memory (gpu4's passes where the field is too small for poisson_strip.cuh's
// warps to be many).
//
// A block of kTile x kTile threads, one point each, loads its tile of u into shared memory and
// does DEPTH iterations there, with a barrier after each: a point's four neighbours are a
// shared-memory read away, and the only wait per iteration is the barrier, where a strip's warp
// waits for its rows one after another. Each iteration spoils one more ring of points at the
// tile's edge (their outer neighbours are not in the tile), so a tile stores only its middle
// kTile - 2 HALO points in each direction: tiles overlap by the halo, 2 HALO points wide.
#pragma once

#include "poisson.h"

namespace poisson_tile {

constexpr int kTile = 32;  // 32 x 32 threads: 1024, the most a block may have

// The fields that go in tiles, and the depth each kind of pass does best (measured on an H200,
// 1000 iterations, results/h200_tiles_or_strips.csv: tiles of depth 4 ran 1.6x strips of depth 8
// at 1024^2, strips 1.15x tiles at 2048^2; tiles of depth 8 store a quarter of what they
// compute, 16 nothing).
constexpr int kTilesUpTo = 1024;
constexpr int kTileDepth = 4, kStripDepth = 8;
inline int fused_depth(int N) {
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
// (HALO = DEPTH; a thinner one is a mistake the tests must catch). Called by all kTile x kTile
// threads of a block.
template <int DEPTH, int HALO = DEPTH>
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

// A pass of gpu4 (and of the tests' wrong variants): block (x, y) does tile (x, y).
template <int DEPTH, int HALO = DEPTH>
__global__ void __launch_bounds__(kTile * kTile)
    tile_pass(int N, double h2, const double* __restrict__ f, const double* __restrict__ in, double* __restrict__ out) {
  iterate_tile<DEPTH, HALO>(N, h2, f, in, out, blockIdx.x, blockIdx.y);
}

}  // namespace poisson_tile
