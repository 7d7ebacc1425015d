// poisson gpu4: several iterations per pass (temporal blocking in 2D).
//   run:  build/chapters/03-poisson/jacobi gpu4 8192 1000 [--depth 8]
//   test: meson test -C build poisson-gpu4 --print-errorlogs
// Change from gpu3: a pass over the field does `depth` iterations, not one, so each point of u
// is read and written once per pass: the bytes per update fall from 24 to about (8 + 8 + 8) /
// depth, plus the halo (points computed again by the neighbouring tile or strip). Two shapes:
//   fields up to 1024^2: a block of 32 x 32 threads iterates its tile in shared memory, a
//   barrier after each iteration (poisson_tile.cuh; depth 4: 24 x 24 stored of 32 x 32);
//   larger fields: one warp per strip of 128 columns walks down its rows and keeps, for every
//   iteration level, the last rows it computed in registers (poisson_strip.cuh; depth 8: 112
//   columns stored of 128, each segment of rows starts `depth` rows early, ends `depth` late).
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
#include "check.h"
#include "poisson.h"
#include "poisson_strip.cuh"
#include "poisson_tile.cuh"

namespace {

using namespace poisson_strip;

// One pass of DEPTH iterations from cur into next; then next is the newest.
template <int DEPTH>
void pass(const PoissonGrid& g, const double* f, double*& cur, double*& next, cudaStream_t stream) {
  if constexpr (poisson_tile::stored_side<DEPTH>() >= poisson_tile::kTile / 2) {
    if (g.N <= poisson_tile::kTilesUpTo) {
      const dim3 block(poisson_tile::kTile, poisson_tile::kTile);
      const int side = poisson_tile::tiles_per_side<DEPTH>(g.N);
      poisson_tile::tile_pass<DEPTH><<<dim3(side, side), block, 0, stream>>>(g.N, g.h() * g.h(), f, cur, next);
      CUDA_CHECK_LAUNCH();
      std::swap(cur, next);
      return;
    }
  }
  // As many strips x segments as warps the GPU holds at once: one wave, the rows shared evenly.
  static const int resident = tut::resident_blocks(reinterpret_cast<const void*>(strip_pass<DEPTH>), kStripThreads, 0);
  const Layout layout = layout_for<DEPTH>(g.N, resident);
  strip_pass<DEPTH><<<layout.items(), kStripThreads, 0, stream>>>(g.N, g.h() * g.h(), f, cur, next, layout);
  CUDA_CHECK_LAUNCH();
  std::swap(cur, next);
}

// Passes of DEPTH, then what DEPTH leaves of count - 1 in passes of its binary digits (4, 2, 1:
// each shallower pass has its own thinner halo), and a last pass of one iteration: it leaves the
// field before it in `next`, so that the tolerance check measures one iteration's change.
template <int DEPTH>
void advance(const PoissonGrid& g, const double* f, double*& cur, double*& next, int count, cudaStream_t stream) {
  // EXERCISE: `count` iterations in the passes the comment above describes
  int left = count - 1;
  for (; left >= DEPTH; left -= DEPTH) pass<DEPTH>(g, f, cur, next, stream);
  if (DEPTH > 8 && left & 8) pass<8>(g, f, cur, next, stream);
  if (DEPTH > 4 && left & 4) pass<4>(g, f, cur, next, stream);
  if (DEPTH > 2 && left & 2) pass<2>(g, f, cur, next, stream);
  if (left & 1) pass<1>(g, f, cur, next, stream);
  pass<1>(g, f, cur, next, stream);
}

SolveResult solve(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  return solve_at_depth<advance<2>, advance<4>, advance<8>, advance<16>>("gpu4", poisson_tile::fused_depth(p.grid.N), p, u, o);
}

}  // namespace

const PoissonCode poisson_gpu4{solve, poisson_tile::fused_depth};
