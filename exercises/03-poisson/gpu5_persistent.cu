// Exercise skeleton generated from solutions/03-poisson/gpu5_persistent.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// poisson gpu5: the iteration loop on the GPU, in one persistent kernel.
//   run:  build-ex/chapters/03-poisson/jacobi gpu5 1024 1000 [--depth 8]
//   test: meson test -C build-ex poisson-gpu5 poisson-gpu5-idea --print-errorlogs
// Change from gpu4: one cooperative launch of as many blocks as the GPU holds at once runs
// every iteration of a call (a cooperative launch guarantees that all blocks are on the GPU at
// once, without which a grid barrier could wait forever), and each block holds a region of u
// in its threads' registers (poisson_resident.cuh; on an H100, one block of 128 x 96 points with
// its ring per SM). The regions iterate without touching memory and every `depth` iterations
// trade their edges through L2, a grid barrier between storing their own and loading theirs.
// Fields the blocks can hold whole (up to about 1040^2 at depth 8 and 1140^2 at 4 on an H100's
// 132 SMs) are loaded once and held to the end. Larger ones are cut into patches the grid holds
// one after another: each patch with a ring of R points (R iterations' worth, as gpu4's halo),
// R iterations, its own points stored into the other field, the next patch; a round of R
// iterations takes every patch once.
// Why it should help: at 1024^2 gpu4 reads u and f and writes u in L2 at every pass, and waits
// on a launch per pass; here a point's value moves from thread to thread (shuffles, shared
// memory), and only the edges of the regions, a few percent of the field, go through L2. In
// patches, the field goes through memory once per R iterations (R = 120 at 2048^2, depth 4).
// What still limits it (measured on an H100): 12 warps per SM (168 registers a thread) wait on
// the latency of the steps of an iteration (a block barrier, shared memory, shuffles); each
// region holds its ring as well (1.4x the points it stores at 1024^2 and depth 8, 3x at
// 256^2), and each patch its own ring. A block holds 32 points of u per thread, a third of the
// SM's registers, and h^2 f / 4 in 96 KiB of shared memory: GPUs that give a block less than
// 144 KiB (compute capability 7.x, 8.6, 8.9) cannot run it.
#include <memory>

#include "check.h"
#include "poisson.h"
#include "poisson_resident.cuh"
#include "stress.h"

namespace {

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
  // Compared as a signed difference, so that the count may wrap around (a long call at 16384^2
  // makes about 50 barriers an iteration).
  while (!__all_sync(0xffffffffu, int(load_acquire(arrived) - target) >= 0)) {
  }
}

// A grid barrier: the block's warps meet first, and its first warp stands for the block.
__device__ void grid_barrier(unsigned* arrived, unsigned& barriers) {
  const unsigned target = ++barriers * gridDim.x;
  __syncthreads();
  if (threadIdx.x < 32) arrive_and_wait(arrived, target);
  __syncthreads();
  tut::stress::pause_if(blockIdx.x % 2 == 1);  // stress builds: odd blocks leave late, their neighbours run ahead
}

// `count` iterations from cur (into next, back into cur, ...) in rounds: a round takes every
// patch in turn, each block loads its region of the patch with its ring from cur, iterates it
// in registers (poisson_resident.cuh), every DEPTH iterations trading edges with the
// neighbouring regions through a board, and stores the patch's own points into next. Rounds of
// patches.ring iterations, then one of a single iteration, so that the field before the last
// stays in the other buffer for the tolerance check.
template <int DEPTH>
__global__ void __launch_bounds__(poisson_resident::kThreads, 1)
    held_in_patches(int N, double h2, const double* __restrict__ f, double* cur, double* next, double* boards,
                    poisson_resident::Patches patches, poisson_resident::Regions regions, int count, unsigned* arrived) {
  unsigned barriers = 0;
  const auto round = [&](int steps) {
    for (int p = 0; p < patches.count(); ++p) {
      __syncthreads();  // the last readers of the previous region's shared memory are done
      // A ring of DEPTH points: DEPTH iterations between two trades. (The stress suite's build
      // whose ring is one point thinner, removed("outer_ring_point"), must fail.)
      constexpr int kRing = DEPTH - int(tut::stress::removed("outer_ring_point"));
      // The patch with a ring of patches.ring points, right for the round's patches.ring
      // iterations: the trades keep the regions' rings fresh, not the patch's. (The stress
      // suite's build that holds the patch with the regions' ring of DEPTH points,
      // removed("patch_ring"), must fail.)
      const poisson_resident::Rect owned = patches.owned(p, N);
      const int patch_ring = tut::stress::removed("patch_ring") ? DEPTH : patches.ring;
      poisson_resident::Region<kRing> region(N, h2, regions, poisson_resident::around(owned, patch_ring, N), owned, f, cur);
      for (int step = 0; step < steps; ++step) {
        if (step > 0 && step % DEPTH == 0) {
          // TODO(exercise): trade edges with the neighbouring regions: store this region's band on a
          //   board, wait until every block has stored its own, then load the ring from the
          //   same board. The two boards take turns (board i starts at boards + i (N + 2)^2):
          //   a block storing its next band must not overwrite one that a slower block has yet
          //   to load. Take turns by the count of grid barriers, not by `step`: `step` starts
          //   again at every patch, with no grid barrier between two patches.
        }
        region.iterate();
      }
      region.store_owned(next);
    }
    grid_barrier(arrived, barriers);  // every patch stored before any block loads the next round's
    double* t = cur;
    cur = next;
    next = t;
  };
  for (long r = 0; r + 1 < patches.rounds(count); ++r) round(int(min(long(patches.ring), count - 1 - r * patches.ring)));
  round(1);
}

// How gpu5 holds a field: its patches, and the regions that cut the largest of them.
struct Plan {
  poisson_resident::Patches patches;
  poisson_resident::Regions regions;
};

// The regions that cut the inside of the largest of the patches (its outer edge excluded).
template <int DEPTH>
poisson_resident::Regions regions_of(int N, const poisson_resident::Patches& p, int blocks) {
  int across = 0, down = 0;
  for (int i = 0; i < p.across; ++i) {
    const poisson_resident::Rect r = p.held(i, N);  // the patches of the first row: every width
    across = std::max(across, r.x1 - r.x0 - 1);
  }
  for (int i = 0; i < p.down; ++i) {
    const poisson_resident::Rect r = p.held(i * p.across, N);  // of the first column: every height
    down = std::max(down, r.y1 - r.y0 - 1);
  }
  return poisson_resident::regions_for<DEPTH>(across, down, blocks);
}

// A plan's time per iteration, in iterations of the whole grid: every patch takes the grid
// once per iteration, a trade every DEPTH iterations (about 0.7 of an iteration, measured on
// an H100), and a load and a store of the patch once per round (about 10).
template <int DEPTH>
double cost_of(const poisson_resident::Patches& p) {
  return p.count() * (1.0 + 0.7 / DEPTH + 10.0 / p.ring);
}

// The plan for a field of N^2 with `blocks` blocks: the whole field as one patch held for the
// whole call where the regions hold it, else the cheapest cut into patches, each with the
// deepest ring (a multiple of DEPTH) that the regions hold (none: count() == 0).
template <int DEPTH>
Plan plan_for(int N, int blocks) {
  const poisson_resident::Patches whole{1, 1, N, N, 1 << 30};
  const poisson_resident::Regions regions = regions_of<DEPTH>(N, whole, blocks);
  if (regions.count() > 0) return {whole, regions};
  Plan best;
  const int most = std::min(N, 32 + N / 64);  // patches of at least about 64 points a side
  for (int across = 1; across <= most; ++across)
    for (int down = 1; down <= most; ++down) {
      // A plan costs at least its patch count: no larger cut can beat the best one.
      if (best.regions.count() > 0 && across * down >= cost_of<DEPTH>(best.patches)) break;
      poisson_resident::Patches p{across, down, int(blocks_for(N, across)), int(blocks_for(N, down)), 0};
      int deepest = 0;  // rings of DEPTH x 1 .. 256 hold fewer points the shallower they are: bisect
      for (int low = 1, high = 256; low <= high;) {
        const int mid = (low + high) / 2;
        p.ring = mid * DEPTH;
        if (regions_of<DEPTH>(N, p, blocks).count() > 0) deepest = mid, low = mid + 1;
        else high = mid - 1;
      }
      if (deepest == 0) continue;
      p.ring = deepest * DEPTH;
      if (best.regions.count() == 0 || cost_of<DEPTH>(p) < cost_of<DEPTH>(best.patches))
        best = {p, regions_of<DEPTH>(N, p, blocks)};
    }
  return best;
}

// The plan for N^2 on this GPU, with as many blocks as it holds at once (none: count() == 0).
template <int DEPTH>
Plan plan_at(int N) {
  static const int resident = [] {
    if (!poisson_resident::shared_fits()) return 0;
    const auto kernel = reinterpret_cast<const void*>(held_in_patches<DEPTH>);
    poisson_resident::allow_shared(kernel);
    return tut::resident_blocks(kernel, poisson_resident::kThreads, poisson_resident::kSharedBytes);
  }();
  static int planned_N = -1;
  static Plan plan;
  if (N != planned_N) plan = plan_for<DEPTH>(N, resident), planned_N = N;
  return plan;
}

// The barrier's count, zeroed before every launch.
unsigned* zeroed_counter(cudaStream_t stream) {
  static tut::DeviceBuffer<unsigned> arrived(1);
  CUDA_CHECK(cudaMemsetAsync(arrived.get(), 0, sizeof(unsigned), stream));
  return arrived.get();
}

// The two boards on which regions trade edges, each the size of a field (kept between calls).
double* boards_for(int N) {
  static std::unique_ptr<tut::DeviceBuffer<double>> boards;
  const size_t size = 2 * size_t(N + 2) * (N + 2);
  if (!boards || boards->size() < size) boards = std::make_unique<tut::DeviceBuffer<double>>(size);
  return boards->get();
}

template <int DEPTH>
void advance(const PoissonGrid& g, const double* f, double*& cur, double*& next, int count, cudaStream_t stream) {
  Plan plan = plan_at<DEPTH>(g.N);
  if (plan.regions.count() == 0 && !poisson_resident::shared_fits())  // asked once a plan is missing, not every call
    throw tut::NoDeviceError("gpu5 holds regions of " + std::to_string(poisson_resident::kSharedBytes / 1024) +
                             " KiB of shared memory a block, more than this GPU gives a block");
  if (plan.regions.count() == 0)
    throw tut::UsageError("gpu5 finds no patches of N = " + std::to_string(g.N) + " that this GPU's blocks can hold at depth " +
                          std::to_string(DEPTH));
  int N = g.N;
  double h2 = g.h() * g.h();
  double* boards = boards_for(N);
  unsigned* counter = zeroed_counter(stream);
  void* args[] = {&N, &h2, const_cast<double**>(&f), &cur, &next, &boards, &plan.patches, &plan.regions, &count, &counter};
  CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(held_in_patches<DEPTH>), plan.regions.count(),
                                         poisson_resident::kThreads, args, poisson_resident::kSharedBytes, stream));
  if (plan.patches.rounds(count) % 2 == 1) std::swap(cur, next);  // the newest field is in next
}

// The plan in words, for jacobi's output.
template <int DEPTH>
std::string layout_at(int N) {
  const Plan plan = plan_at<DEPTH>(N);
  const poisson_resident::Patches& p = plan.patches;
  const poisson_resident::Regions& r = plan.regions;
  const std::string regions = std::to_string(r.count()) + " regions of up to " + std::to_string(r.width) + " x " +
                              std::to_string(r.height) + " points, edges traded every " + std::to_string(DEPTH) + " iterations";
  if (p.count() == 1) return "the whole field held on chip by " + regions;
  return "the field too large to hold whole: " + std::to_string(p.across) + " x " + std::to_string(p.down) +
         " patches of up to " + std::to_string(p.width) + " x " + std::to_string(p.height) + " points held in turn, " +
         std::to_string(p.ring) + " iterations each, by " + regions;
}

// The depth of the cheapest plan (4 or 8: the deeper, the wider each region's ring).
int own_depth(int N) {
  if (plan_at<4>(N).regions.count() > 0 && cost_of<4>(plan_at<4>(N).patches) < cost_of<8>(plan_at<8>(N).patches))
    return 4;
  return 8;
}

SolveResult solve(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  int supported = 0, device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, device));
  if (!supported)
    throw tut::NoDeviceError("gpu5 needs a cooperative launch (all its blocks on the GPU at once), which this GPU does not offer");
  const int depth = o.depth ? o.depth : own_depth(p.grid.N);
  SolveResult result = solve_at_depth<advance<2>, advance<4>, advance<8>, advance<16>>("gpu5", depth, p, u, o);
  switch (depth) {
    case 2: result.layout = layout_at<2>(p.grid.N); break;
    case 4: result.layout = layout_at<4>(p.grid.N); break;
    case 8: result.layout = layout_at<8>(p.grid.N); break;
    case 16: result.layout = layout_at<16>(p.grid.N); break;
  }
  return result;
}

}  // namespace

const PoissonCode poisson_gpu5{solve, own_depth};
