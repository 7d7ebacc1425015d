// poisson gpu5: the iteration loop on the GPU, in one persistent kernel.
//   run:  build/chapters/03-poisson/jacobi gpu5 1024 1000 [--depth 8]
//   test: meson test -C build poisson-gpu5 poisson-gpu5-idea --print-errorlogs
// Change from gpu4: one cooperative launch of as many blocks as the GPU holds at once runs
// every iteration of a call (a cooperative launch guarantees that all blocks are on the GPU at
// once, without which a grid barrier could wait forever). Two shapes:
//   fields the blocks can hold (up to about 1040^2 at depth 8 and 1140^2 at 4 on an H100's
//   132 SMs, one block of 128 x 96 points with its ring per SM): each block holds a region of u in its threads' registers for the whole run
//   (poisson_resident.cuh), iterates it without touching memory, and every `depth` iterations
//   trades its edges with its neighbours through L2, a grid barrier between storing its own
//   and loading theirs;
//   larger fields: gpu4's passes in strips, a grid barrier between two passes, u through L2.
// Why it should help: at 1024^2 gpu4 reads u and f and writes u in L2 at every pass, and waits
// on a launch per pass; here a point's value moves from thread to thread (shuffles, shared
// memory), and only the edges of the regions, a few percent of the field, go through L2.
// What still limits it (measured on an H100): in registers, 12 warps per SM (157 registers a
// thread) wait on the latency of the steps of an iteration (a block barrier, shared memory,
// shuffles), and each region holds its ring as well (1.4x the points it stores at 1024^2 and
// depth 8, 3x at 256^2). Larger fields run gpu4's strips: the same rate, latency-bound. A block
// holds 32 points of u per thread, a third of the SM's registers; at 2048^2 no layout would do,
// since u and f (32 MiB each) outgrow an H100's registers and shared memory (62 MiB together).
#include "check.h"
#include "poisson.h"
#include "poisson_resident.cuh"
#include "poisson_strip.cuh"
#include "poisson_tile.cuh"

namespace {

using namespace poisson_strip;

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

// The arrival of a block at a grid barrier and its wait for the others, done by one warp, all
// 32 lanes alike: every lane does the same atomic (lane 0 adds one, the others nothing) and the
// same wait (a warp vote), so no lane takes a branch of its own. cooperative_groups' grid.sync()
// has a branch for one thread per block; after it the warp's lanes may run apart, and the
// compiler, which can no longer tell that they run together, wraps every shuffle that follows
// in code for lanes that might not (more shuffles, each with its reconvergence steps), or, as
// a first version here with a branch for thread 0 did, leaves them apart at the next shuffle.
// `arrived` counts blocks; the barrier of pass p waits for (p + 1) x blocks.
__device__ void arrive_and_wait(unsigned* arrived, unsigned target) {
  __threadfence();  // the block's stores, seen by this warp at a block barrier before, visible on the GPU
  atomicAdd(arrived, threadIdx.x % 32 == 0 ? 1u : 0u);
  while (!__all_sync(0xffffffffu, load_acquire(arrived) >= target)) {
  }
}

// A grid barrier for blocks of one warp (the strips).
__device__ void grid_barrier(unsigned* arrived, unsigned& barriers) { arrive_and_wait(arrived, ++barriers * gridDim.x); }

// The same for blocks of many warps (the regions held on chip): the block's warps meet first,
// and its first warp stands for the block.
__device__ void grid_barrier_of_blocks(unsigned* arrived, unsigned& barriers) {
  const unsigned target = ++barriers * gridDim.x;
  __syncthreads();
  if (threadIdx.x < 32) arrive_and_wait(arrived, target);
  __syncthreads();
}

// One pass of DEPTH iterations over the whole field by the whole grid, in gpu4's strips, from
// `in` into `out`; then the fields swap.
template <int DEPTH>
__device__ void pass(unsigned* arrived, unsigned& barriers, int N, double h2, const double* f, double*& in, double*& out,
                     const Layout& layout) {
  for (int item = blockIdx.x; item < layout.items(); item += gridDim.x) iterate_strip<DEPTH>(N, h2, f, in, out, layout, item);
  // EXERCISE: wait until every block of the grid has stored its part of this pass, then swap
  //   the fields for the next one
  grid_barrier(arrived, barriers);
  double* t = in;
  in = out;
  out = t;
}

// `count` iterations from a (into b, back into a, ...) in gpu4's passes: DEPTH deep, the rest in
// shallower ones, and a last one of one iteration (the field before it stays in the other
// buffer, for the tolerance check). The newest field ends in a after an even number of passes.
template <int DEPTH>
__global__ void __launch_bounds__(kStripThreads)
    all_passes(int N, double h2, const double* __restrict__ f, double* a, double* b, Layout layout, int count,
               unsigned* arrived) {
  unsigned barriers = 0;
  int left = count - 1;
  for (; left >= DEPTH; left -= DEPTH) pass<DEPTH>(arrived, barriers, N, h2, f, a, b, layout);
  if (DEPTH > 8 && left & 8) pass<8>(arrived, barriers, N, h2, f, a, b, layout);
  if (DEPTH > 4 && left & 4) pass<4>(arrived, barriers, N, h2, f, a, b, layout);
  if (DEPTH > 2 && left & 2) pass<2>(arrived, barriers, N, h2, f, a, b, layout);
  if (left & 1) pass<1>(arrived, barriers, N, h2, f, a, b, layout);
  pass<1>(arrived, barriers, N, h2, f, a, b, layout);
}

// `count` iterations with the field in the blocks' registers (poisson_resident.cuh): each block
// loads its region and ring from cur once, trades edges every DEPTH iterations, and at the end
// stores its region's last field into cur and the one before it into next.
template <int DEPTH>
__global__ void __launch_bounds__(poisson_resident::kThreads, 1)
    held_on_chip(int N, double h2, const double* __restrict__ f, double* cur, double* next,
                 poisson_resident::Regions regions, int count, unsigned* arrived) {
  poisson_resident::Region<DEPTH> region(N, h2, regions, f, cur);
  unsigned barriers = 0;
  for (int step = 0; step < count; ++step) {
    if (step > 0 && step % DEPTH == 0) {
      // EXERCISE: trade edges with the neighbouring blocks: store this region's band on a board
      //   (the fields in turn, next then cur, so that a block storing its next band never
      //   overwrites one a slower neighbour has yet to load), wait until every block has stored
      //   its own, then load the ring from the same board
      double* board = (step / DEPTH) % 2 ? next : cur;
      region.store_band(board);
      grid_barrier_of_blocks(arrived, barriers);
      region.load_ring(board);
    }
    if (step == count - 1) {
      grid_barrier_of_blocks(arrived, barriers);  // no block loads a ring from next any more
      region.store_region(next);  // the field before the last iteration, for the tolerance check
    }
    region.iterate();
  }
  region.store_region(cur);
}

// The barrier's count, zeroed before every launch.
unsigned* zeroed_counter(cudaStream_t stream) {
  static tut::DeviceBuffer<unsigned> arrived(1);
  CUDA_CHECK(cudaMemsetAsync(arrived.get(), 0, sizeof(unsigned), stream));
  return arrived.get();
}

template <int DEPTH>
void launch_all_passes(const PoissonGrid& g, const double* f, double*& cur, double*& next, int count, cudaStream_t stream) {
  const auto kernel = all_passes<DEPTH>;
  static const int resident = tut::resident_blocks(reinterpret_cast<const void*>(kernel), kStripThreads, 0);
  // Items for the resident warps, laid out as gpu4's deepest pass (the shallower ones use it too).
  Layout layout = layout_for<DEPTH>(g.N, resident);
  int N = g.N;
  double h2 = g.h() * g.h();
  unsigned* counter = zeroed_counter(stream);
  void* args[] = {&N, &h2, const_cast<double**>(&f), &cur, &next, &layout, &count, &counter};
  CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), std::min(resident, layout.items()),
                                         kStripThreads, args, 0, stream));
  const int passes = (count - 1) / DEPTH + __builtin_popcount((count - 1) % DEPTH) + 1;
  if (passes % 2 == 1) std::swap(cur, next);
}

// The regions of a field of N^2 for held_on_chip<DEPTH>, one per block the GPU holds at once
// (count() == 0: the field is too large to hold).
template <int DEPTH>
poisson_resident::Regions regions_at(int N) {
  static const int resident = [] {
    if (!poisson_resident::shared_fits()) return 0;  // GPUs that give a block less shared memory: strips
    const auto kernel = reinterpret_cast<const void*>(held_on_chip<DEPTH>);
    poisson_resident::allow_shared(kernel);
    return tut::resident_blocks(kernel, poisson_resident::kThreads, poisson_resident::kSharedBytes);
  }();
  return poisson_resident::regions_for<DEPTH>(N, resident);
}

template <int DEPTH>
void advance(const PoissonGrid& g, const double* f, double*& cur, double*& next, int count, cudaStream_t stream) {
  poisson_resident::Regions regions = regions_at<DEPTH>(g.N);
  if (regions.count() == 0) return launch_all_passes<DEPTH>(g, f, cur, next, count, stream);  // too large to hold
  int N = g.N;
  double h2 = g.h() * g.h();
  unsigned* counter = zeroed_counter(stream);
  void* args[] = {&N, &h2, const_cast<double**>(&f), &cur, &next, &regions, &count, &counter};
  CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(held_on_chip<DEPTH>), regions.count(),
                                         poisson_resident::kThreads, args, poisson_resident::kSharedBytes, stream));
}

// The deepest depth with which the GPU holds the field (8, else 4: each level of depth widens
// the ring), else the strips' depth.
int own_depth(int N) {
  if (regions_at<8>(N).count() > 0) return 8;
  if (regions_at<4>(N).count() > 0) return 4;
  return poisson_tile::kStripDepth;
}

SolveResult solve(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  int supported = 0, device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, device));
  if (!supported)
    throw tut::NoDeviceError("gpu5 needs a cooperative launch (all its blocks on the GPU at once), which this GPU does not offer");
  return solve_at_depth<advance<2>, advance<4>, advance<8>, advance<16>>("gpu5", own_depth(p.grid.N), p, u, o);
}

}  // namespace

const PoissonCode poisson_gpu5{solve, own_depth};
