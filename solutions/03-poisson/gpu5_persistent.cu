// poisson gpu5: the iteration loop on the GPU, in one persistent kernel.
//   run:  build/chapters/03-poisson/jacobi gpu5 2048 1000 [--depth 8]
//   test: meson test -C build poisson-gpu5 poisson-gpu5-idea --print-errorlogs
// Change from gpu4: instead of a launch per pass, one cooperative launch of as many blocks as
// the GPU holds at once runs every pass of a call: each block takes its tiles (fields up to
// 1024^2) or each warp its strips and segments (larger ones) in gpu4's passes, and a grid barrier
// between two passes says that every block's points of the pass are out before any block reads
// them (a cooperative launch guarantees that all blocks are on the GPU at once, without which a
// barrier could wait forever). The two fields swap inside the kernel; u goes from SM to SM
// through the L2 cache.
// Why it should help: where the whole problem sits in L2 (the three fields are 25 MiB at
// 1024^2), a pass takes microseconds, and a launch per pass would be a large part of it; a grid
// barrier costs about a microsecond, once per `depth` iterations.
// What still limits it (measured on an H100): where passes are short (256^2: a few µs) one
// launch doubles gpu4's rate; at 1024^2 it gains 8%, and from 2048^2, where a pass in strips
// takes 140 µs, nothing: there launches were never the cost. The barrier adds the wait for the
// slowest block; u and f go through L2 at every pass, not kept on chip.
#include "check.h"
#include "poisson.h"
#include "poisson_strip.cuh"
#include "poisson_tile.cuh"

namespace {

using namespace poisson_strip;

constexpr int kThreads = 32;  // a block is one warp, as in gpu4

// The value at `counter`, read with acquire order: what was written before a release of it (the
// fence before the atomic below) is seen after this read.
__device__ unsigned load_acquire(const unsigned* counter) {
  unsigned value;
#if __CUDA_ARCH__ >= 700
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(counter) : "memory");
#else
  value = *reinterpret_cast<const volatile unsigned*>(counter);
  __threadfence();
#endif
  return value;
}

// A grid barrier that all 32 lanes of each block (one warp) go through alike: every lane does
// the same atomic (lane 0 adds one, the others nothing) and the same wait (a warp vote), so no
// lane takes a branch of its own. cooperative_groups' grid.sync() has a branch for one thread
// per block; after it the compiler can no longer tell that the warp's lanes run together, and
// it wraps every shuffle that follows in code for lanes that might not (more shuffles, each
// with its reconvergence steps). `arrived` counts blocks; the barrier of pass p waits for
// (p + 1) x blocks.
__device__ void grid_barrier(unsigned* arrived, unsigned& barriers) {
  __threadfence();  // this warp's stores of the pass, visible on the GPU before it says it has arrived
  atomicAdd(arrived, threadIdx.x == 0 ? 1u : 0u);
  const unsigned target = ++barriers * gridDim.x;
  while (!__all_sync(0xffffffffu, load_acquire(arrived) >= target)) {
  }
}

// The same for blocks of many warps (the tiles of small fields): the block's threads meet first,
// and one of them stands for the block.
__device__ void grid_barrier_of_blocks(unsigned* arrived, unsigned& barriers) {
  const unsigned target = ++barriers * gridDim.x;
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    __threadfence();  // the block's stores, seen by this thread at the barrier above, visible on the GPU
    atomicAdd(arrived, 1u);
    while (load_acquire(arrived) < target) {
    }
  }
  __syncthreads();
}

// One pass of DEPTH iterations over the whole field by the whole grid, from `in` into `out`;
// then the fields swap. TILES: the field in gpu4's tiles (poisson_tile.cuh), else its strips.
template <int DEPTH, bool TILES>
__device__ void pass(unsigned* arrived, unsigned& barriers, int N, double h2, const double* f, double*& in, double*& out,
                     const Layout& layout) {
  if constexpr (TILES) {
    const int side = poisson_tile::tiles_per_side<DEPTH>(N);
    for (int tile = blockIdx.x; tile < side * side; tile += gridDim.x) {
      __syncthreads();  // the previous tile's last reads of shared memory are done
      poisson_tile::iterate_tile<DEPTH>(N, h2, f, in, out, tile % side, tile / side);
    }
  } else {
    for (int item = blockIdx.x; item < layout.items(); item += gridDim.x) iterate_strip<DEPTH>(N, h2, f, in, out, layout, item);
  }
  // EXERCISE: wait until every block of the grid has stored its part of this pass (the grid
  //   barrier for its kind of block), then swap the fields for the next one
  if constexpr (TILES)
    grid_barrier_of_blocks(arrived, barriers);
  else
    grid_barrier(arrived, barriers);
  double* t = in;
  in = out;
  out = t;
}

// `count` iterations from a (into b, back into a, ...) in gpu4's passes: DEPTH deep, the rest in
// shallower ones, and a last one of one iteration (the field before it stays in the other
// buffer, for the tolerance check). The newest field ends in a after an even number of passes.
template <int DEPTH, bool TILES>
__global__ void __launch_bounds__(TILES ? poisson_tile::kTile * poisson_tile::kTile : kThreads)
    all_passes(int N, double h2, const double* __restrict__ f, double* a, double* b, Layout layout, int count,
               unsigned* arrived) {
  unsigned barriers = 0;
  int left = count - 1;
  for (; left >= DEPTH; left -= DEPTH) pass<DEPTH, TILES>(arrived, barriers, N, h2, f, a, b, layout);
  if (DEPTH > 8 && left & 8) pass<8, TILES>(arrived, barriers, N, h2, f, a, b, layout);
  if (DEPTH > 4 && left & 4) pass<4, TILES>(arrived, barriers, N, h2, f, a, b, layout);
  if (DEPTH > 2 && left & 2) pass<2, TILES>(arrived, barriers, N, h2, f, a, b, layout);
  if (left & 1) pass<1, TILES>(arrived, barriers, N, h2, f, a, b, layout);
  pass<1, TILES>(arrived, barriers, N, h2, f, a, b, layout);
}

template <int DEPTH, bool TILES>
void launch_all_passes(const PoissonGrid& g, const double* f, double*& cur, double*& next, int count, cudaStream_t stream) {
  const auto kernel = all_passes<DEPTH, TILES>;
  const dim3 threads = TILES ? dim3(poisson_tile::kTile, poisson_tile::kTile) : dim3(kThreads);
  static const int resident = tut::resident_blocks(reinterpret_cast<const void*>(kernel), threads.x * threads.y, 0);
  if (resident == 0) throw std::runtime_error("gpu5: not one block of its kernel fits on an SM");
  // Items for the resident warps, laid out as gpu4's deepest pass (the shallower ones use it too).
  Layout layout = layout_for<DEPTH>(g.N, resident);
  int items = layout.items();
  if constexpr (TILES) items = poisson_tile::tiles_per_side<DEPTH>(g.N) * poisson_tile::tiles_per_side<DEPTH>(g.N);
  const int blocks = std::min(resident, items);
  int N = g.N;
  double h2 = g.h() * g.h();
  static tut::DeviceBuffer<unsigned> arrived(1);  // the barrier's count, from 0 at every launch
  CUDA_CHECK(cudaMemsetAsync(arrived.get(), 0, sizeof(unsigned), stream));
  unsigned* counter = arrived.get();
  void* args[] = {&N, &h2, const_cast<double**>(&f), &cur, &next, &layout, &count, &counter};
  CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), blocks, threads, args, 0, stream));
  const int passes = (count - 1) / DEPTH + __builtin_popcount((count - 1) % DEPTH) + 1;
  if (passes % 2 == 1) std::swap(cur, next);
}

template <int DEPTH>
void advance(const PoissonGrid& g, const double* f, double*& cur, double*& next, int count, cudaStream_t stream) {
  if constexpr (poisson_tile::stored_side<DEPTH>() >= poisson_tile::kTile / 2)
    if (g.N <= poisson_tile::kTilesUpTo) return launch_all_passes<DEPTH, true>(g, f, cur, next, count, stream);
  launch_all_passes<DEPTH, false>(g, f, cur, next, count, stream);
}

SolveResult solve(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  int supported = 0, device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, device));
  if (!supported)
    throw tut::NoDeviceError("gpu5 needs a cooperative launch (all its blocks on the GPU at once), which this GPU does not offer");
  return solve_at_depth<advance<2>, advance<4>, advance<8>, advance<16>>("gpu5", poisson_tile::fused_depth(p.grid.N), p, u, o);
}

}  // namespace

const PoissonCode poisson_gpu5{solve, poisson_tile::fused_depth};
