// poisson gpu5: the iteration loop on the GPU, in one persistent kernel.
//   run:  build/chapters/03-poisson/jacobi gpu5 1024 1000 [--depth 8]
//   test: meson test -C build poisson-gpu5 poisson-gpu5-idea --print-errorlogs
// Change from gpu4: one cooperative launch of as many blocks as the GPU holds at once runs
// every iteration of a call (a cooperative launch guarantees that all blocks are on the GPU at
// once, without which a grid barrier could wait forever), and each block holds a region of u
// in its threads' registers (on an H100, one block of 128 x 96 points with
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
#include "stress.h"

namespace {

// --- The field held in registers, a region per block -----------------------------------------
// A block of kWarps warps holds a region of the patch and a ring of HALO points around it:
// lane l of warp w holds the columns 4l .. 4l + 3 and the rows kRows w .. kRows w + kRows - 1
// of the region with its ring, u in registers from the first iteration to the last, h^2 f / 4
// in shared memory (no registers are left for it), laid out lane after lane so that a warp
// reads 32 consecutive values (read from f itself, a lane's four values make a warp's load span
// 1 KiB: gpu5 ran 1.7x slower at 1024^2, results/h100_gpu5_f_in_cache_or_shared.csv).
// An iteration needs from other threads only the columns beside the lane's four (two shuffles
// per row, as in gpu4's strips) and the rows just above and below the warp's (shared
// memory, written by the warps beside it, one block barrier between): it reads and writes no
// global memory. Only the ring goes stale, one point deeper at every iteration (its outer
// neighbours are not in the block), so every HALO iterations the blocks trade edges through
// L2: each stores the band of its region that its neighbours' rings cover, HALO deep, and
// after a grid barrier (gpu5's) loads its own ring from theirs. A patch's outer edge goes
// stale the same way, one point deeper at every iteration, so that a patch held with a ring of
// R points is right inside that ring for R iterations.

constexpr int kPerLane = 4, kColumns = 32 * kPerLane;  // a warp spans the region with its ring
constexpr int kWarps = 12, kRows = 8;  // rows per warp: u takes 64 of a thread's 168 registers
constexpr int kThreads = 32 * kWarps, kHeight = kWarps * kRows;

// A rectangle of the field's points, x0..x1 and y0..y1 (both ends included).
struct Rect {
  int x0, x1, y0, y1;
};

// `r` widened by `reach` points on every side, cut off at the field's boundary.
__host__ __device__ inline Rect around(Rect r, int reach, int N) {
  return {max(r.x0 - reach, 0), min(r.x1 + reach, N + 1), max(r.y0 - reach, 0), min(r.y1 + reach, N + 1)};
}

// How the N x N interior is cut into patches, the parts the grid holds one after another:
// `across` x `down` of width x height points (the last ones narrower where N is not a
// multiple). A round takes every patch in turn from one field to the other, `ring` iterations
// each: a patch is held with a ring of `ring` points, whose outer edge keeps its value, so
// that its own points are right after `ring` iterations.
struct Patches {
  int across = 0, down = 0, width = 0, height = 0, ring = 0;
  __host__ __device__ int count() const { return across * down; }
  // The rounds of a call of `count` >= 1 iterations: of `ring` iterations (the last of them
  // shorter) while more than one is left, then one of a single iteration.
  __host__ __device__ long rounds(int count) const { return (count - 1 + long(ring) - 1) / ring + 1; }
  __host__ __device__ Rect owned(int p, int N) const {
    const int x0 = 1 + p % across * width, y0 = 1 + p / across * height;
    return {x0, min(x0 + width, N + 1) - 1, y0, min(y0 + height, N + 1) - 1};
  }
  __host__ __device__ Rect held(int p, int N) const { return around(owned(p, N), ring, N); }
};

// How the inside of a held patch (its points but the outer edge) is cut into regions, one per
// block: `across` x `down` regions of width x height points.
struct Regions {
  int across = 0, down = 0, width = 0, height = 0;
  __host__ __device__ int count() const { return across * down; }
};

// The regions, one per block of at most `blocks` (those the GPU holds at once), that cut a
// patch whose inside is nx x ny points and leave each block the fewest points to hold with a
// ring of HALO; count() == 0 where even `blocks` regions are too large for a block's
// kColumns x kHeight.
template <int HALO>
Regions regions_for(int nx, int ny, int blocks) {
  Regions best;
  long fewest = -1;
  for (int across = 1; across <= std::min(nx, blocks); ++across) {
    const int width = int(blocks_for(nx, across)), height = int(blocks_for(ny, std::min(ny, blocks / across)));
    if (width + 2 * HALO > kColumns || height + 2 * HALO > kHeight) continue;
    const long held = long(width + 2 * HALO) * (height + 2 * HALO);
    if (fewest < 0 || held < fewest) {
      fewest = held;
      best = {int(blocks_for(nx, width)), int(blocks_for(ny, height)), width, height};
    }
  }
  return best;
}

// A block's shared memory: its warps' edge rows, [iteration parity][0: a warp's first row, 1:
// its last][warp][column of the lane's four][lane] (a warp writes and reads 32 consecutive
// values), and the source of the points each lane holds, laid out the same way.
struct Shared {
  double edges[2][2][kWarps][kPerLane][32];
  double quarter_source[kWarps][kRows][kPerLane][32];
};
constexpr size_t kSharedBytes = sizeof(Shared);  // 144 KiB: more than a kernel may declare statically

__device__ inline Shared& block_shared() {
  extern __shared__ __align__(16) unsigned char bytes[];
  return *reinterpret_cast<Shared*>(bytes);
}

// Whether this GPU lets a block have kSharedBytes of shared memory (compute capability 8.0, 9.0
// and 10.0 do; 7.5, 8.6 and 8.9, with 64 to 99 KiB, do not).
inline bool shared_fits() {
  int device = 0, most = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return size_t(most) >= kSharedBytes;
}

// A kernel that holds a Region is launched with kSharedBytes of dynamic shared memory, which it
// must be allowed once.
inline void allow_shared(const void* kernel) {
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSharedBytes)));
}

// One block's region, held in its threads' registers. All kThreads threads of the block
// construct it and call every member function (iterate has a block barrier).
template <int HALO>
class Region {
 public:
  // Loads this block's region of the patch `held` and the region's ring from u (the patch's
  // outer edge keeps its value: the boundary, or where the patch's own ring is cut off); the
  // region's points in `owned` are those store_owned writes. Sorts the thread's points once,
  // into bit masks (bit r * kPerLane + j for row r, column j), so that no iteration recomputes
  // a position.
  __device__ __forceinline__ Region(int N, double h2, const Regions& regions, Rect held, Rect owned,
                                    const double* __restrict__ f, const double* __restrict__ u)
      : shared_(block_shared()), w_(N + 2) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int first_x = held.x0 + 1 + int(blockIdx.x % regions.across) * regions.width;
    const int first_y = held.y0 + 1 + int(blockIdx.x / regions.across) * regions.height;
    const int last_x = min(first_x + regions.width, held.x1) - 1, last_y = min(first_y + regions.height, held.y1) - 1;
    const bool some = first_x <= last_x && first_y <= last_y;  // a patch smaller than the largest leaves blocks idle
    const int x0 = first_x - HALO + kPerLane * lane, y0 = first_y - HALO + kRows * warp;  // the thread's first point
    first_at_ = long(y0) * w_ + x0;  // negative in a ring beyond the boundary, where nothing is read
    unsigned in_patch = 0;
#pragma unroll
    for (int r = 0; r < kRows; ++r)
#pragma unroll
      for (int j = 0; j < kPerLane; ++j) {
        const int x = x0 + j, y = y0 + r;
        const bool mine = some && x <= last_x + HALO && y <= last_y + HALO;  // the region or its ring
        const bool patch = mine && x >= held.x0 && x <= held.x1 && y >= held.y0 && y <= held.y1;
        const bool inside = patch && x > held.x0 && x < held.x1 && y > held.y0 && y < held.y1;
        const bool region = some && x >= first_x && x <= last_x && y >= first_y && y <= last_y;
        const bool band = region && (x < first_x + HALO || x > last_x - HALO || y < first_y + HALO || y > last_y - HALO);
        // The patch's edge keeps its value, as does the ring's outer edge (no neighbour beyond).
        const bool edge = x == first_x - HALO || x == last_x + HALO || y == first_y - HALO || y == last_y + HALO;
        const unsigned b = bit(r, j);
        if (patch) in_patch |= b;
        if (inside && !edge) updated_ |= b;
        if (inside && !region) ring_ |= b;
        if (band) band_ |= b;
        if (region && x >= owned.x0 && x <= owned.x1 && y >= owned.y0 && y <= owned.y1) owned_ |= b;
        const long at = long(min(max(y, 0), N + 1)) * w_ + min(max(x, 0), N + 1);  // read or not: the compiler may
        shared_.quarter_source[warp][r][j][lane] = inside ? 0.25 * h2 * __ldg(f + at) : 0.0;  // load before the test
      }
    busy_ = __any_sync(0xffffffffu, updated_ != 0);
    load(u, in_patch);
  }

  // One Jacobi iteration of every held point; the ring's outer points go stale.
  __device__ __forceinline__ void iterate() {
    auto& mine = shared_.edges[parity_];
    parity_ ^= 1;  // the other buffer next time: its last readers pass the barrier below first
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      mine[0][warp][j][lane] = u_[0][j];
      mine[1][warp][j][lane] = u_[kRows - 1][j];
    }
    __syncthreads();
    if (!busy_) return;  // a warp below the region's last rows (small fields): nothing to compute
    double above[kPerLane], below[kPerLane];  // the rows beside the warp's (first and last warp: unused)
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      above[j] = mine[1][max(warp - 1, 0)][j][lane];
      below[j] = mine[0][min(warp + 1, kWarps - 1)][j][lane];
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      double here[kPerLane];  // row r before this iteration; `above` holds row r - 1's
#pragma unroll
      for (int j = 0; j < kPerLane; ++j) here[j] = u_[r][j];
      // The columns beside the lane's four: the last of the lane before, the first of the lane
      // after (lane 0 and lane 31: garbage, beside the ring's outer columns, which keep their value).
      const double from_left = __shfl_up_sync(0xffffffffu, here[kPerLane - 1], 1);
      const double from_right = __shfl_down_sync(0xffffffffu, here[0], 1);
#pragma unroll
      for (int j = 0; j < kPerLane; ++j) {
        const double left = j == 0 ? from_left : here[j - 1];
        const double right = j == kPerLane - 1 ? from_right : here[j + 1];
        const double down = r + 1 < kRows ? u_[r + 1][j] : below[j];
        // 1/4 (sum + h^2 f) to the last bit: quarters are exact in binary.
        if (updated_ & bit(r, j))
          u_[r][j] = fma(0.25, (left + right) + (above[j] + down), shared_.quarter_source[warp][r][j][lane]);
        above[j] = here[j];
      }
    }
  }

  // The region's points within HALO of its edge, which the neighbours' rings hold, into `board`.
  __device__ __forceinline__ void store_band(double* board) const { store(board, band_); }

  // The ring's interior points from `board`, where the neighbours stored their bands (after
  // the grid barrier).
  __device__ __forceinline__ void load_ring(const double* board) { load(board, ring_); }

  // The region's points in the patch's own part (what the round computes), into `out`.
  __device__ __forceinline__ void store_owned(double* out) const { store(out, owned_); }

 private:
  __device__ static unsigned bit(int r, int j) { return 1u << (r * kPerLane + j); }

  // Through L2 (__ldcg): the L1 cache does not see what other SMs stored.
  __device__ __forceinline__ void load(const double* from, unsigned points) {
    const double* row = from + first_at_;
#pragma unroll
    for (int r = 0; r < kRows; ++r, row += w_)
#pragma unroll
      for (int j = 0; j < kPerLane; ++j)
        if (points & bit(r, j)) u_[r][j] = __ldcg(row + j);
  }
  __device__ __forceinline__ void store(double* to, unsigned points) const {
    double* row = to + first_at_;
#pragma unroll
    for (int r = 0; r < kRows; ++r, row += w_)
#pragma unroll
      for (int j = 0; j < kPerLane; ++j)
        if (points & bit(r, j)) row[j] = u_[r][j];
  }

  Shared& shared_;
  int w_;
  long first_at_;  // the index in the fields of the thread's first point
  unsigned updated_ = 0, ring_ = 0, band_ = 0, owned_ = 0;
  int parity_ = 0;  // which half of shared_.edges this iteration writes
  bool busy_;       // some lane of the warp updates a point
  double u_[kRows][kPerLane] = {};
};

// --- The persistent kernel ----------------------------------------------------------------------

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
// in registers (above), every DEPTH iterations trading edges with the
// neighbouring regions through a board, and stores the patch's own points into next. Rounds of
// patches.ring iterations, then one of a single iteration, so that the field before the last
// stays in the other buffer for the tolerance check.
template <int DEPTH>
__global__ void __launch_bounds__(kThreads, 1)
    held_in_patches(int N, double h2, const double* __restrict__ f, double* cur, double* next, double* boards,
                    Patches patches, Regions regions, int count, unsigned* arrived) {
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
      const Rect owned = patches.owned(p, N);
      const int patch_ring = tut::stress::removed("patch_ring") ? DEPTH : patches.ring;
      Region<kRing> region(N, h2, regions, around(owned, patch_ring, N), owned, f, cur);
      for (int step = 0; step < steps; ++step) {
        if (step > 0 && step % DEPTH == 0) {
          // EXERCISE: trade edges with the neighbouring regions: store this region's band on a
          //   board, wait until every block has stored its own, then load the ring from the
          //   same board. The two boards take turns (board i starts at boards + i (N + 2)^2):
          //   a block storing its next band must not overwrite one that a slower block has yet
          //   to load. Take turns by the count of grid barriers, not by `step`: `step` starts
          //   again at every patch, with no grid barrier between two patches.
          // (The stress suite's build with one board, removed("second_board"), must fail.)
          const int turn = tut::stress::removed("second_board") ? 0 : barriers % 2;
          double* board = boards + turn * (long(N + 2) * (N + 2));
          region.store_band(board);
          grid_barrier(arrived, barriers);
          region.load_ring(board);
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
  Patches patches;
  Regions regions;
};

// The regions that cut the inside of the largest of the patches (its outer edge excluded).
template <int DEPTH>
Regions regions_of(int N, const Patches& p, int blocks) {
  int across = 0, down = 0;
  for (int i = 0; i < p.across; ++i) {
    const Rect r = p.held(i, N);  // the patches of the first row: every width
    across = std::max(across, r.x1 - r.x0 - 1);
  }
  for (int i = 0; i < p.down; ++i) {
    const Rect r = p.held(i * p.across, N);  // of the first column: every height
    down = std::max(down, r.y1 - r.y0 - 1);
  }
  return regions_for<DEPTH>(across, down, blocks);
}

// A plan's time per iteration, in iterations of the whole grid: every patch takes the grid
// once per iteration, a trade every DEPTH iterations (about 0.7 of an iteration, measured on
// an H100), and a load and a store of the patch once per round (about 10).
template <int DEPTH>
double cost_of(const Patches& p) {
  return p.count() * (1.0 + 0.7 / DEPTH + 10.0 / p.ring);
}

// The plan for a field of N^2 with `blocks` blocks: the whole field as one patch held for the
// whole call where the regions hold it, else the cheapest cut into patches, each with the
// deepest ring (a multiple of DEPTH) that the regions hold (none: count() == 0).
template <int DEPTH>
Plan plan_for(int N, int blocks) {
  const Patches whole{1, 1, N, N, 1 << 30};
  const Regions regions = regions_of<DEPTH>(N, whole, blocks);
  if (regions.count() > 0) return {whole, regions};
  Plan best;
  const int most = std::min(N, 32 + N / 64);  // patches of at least about 64 points a side
  for (int across = 1; across <= most; ++across)
    for (int down = 1; down <= most; ++down) {
      // A plan costs at least its patch count: no larger cut can beat the best one.
      if (best.regions.count() > 0 && across * down >= cost_of<DEPTH>(best.patches)) break;
      Patches p{across, down, int(blocks_for(N, across)), int(blocks_for(N, down)), 0};
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
    if (!shared_fits()) return 0;
    const auto kernel = reinterpret_cast<const void*>(held_in_patches<DEPTH>);
    allow_shared(kernel);
    return tut::resident_blocks(kernel, kThreads, kSharedBytes);
  }();
  return plan_for<DEPTH>(N, resident);
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

// `count` iterations in one launch, on the solve's plan.
template <int DEPTH>
void advance(const PoissonGrid& g, const double* f, double*& cur, double*& next, int count, cudaStream_t stream,
             Plan plan) {
  int N = g.N;
  double h2 = g.h() * g.h();
  double* boards = boards_for(N);
  unsigned* counter = zeroed_counter(stream);
  void* args[] = {&N, &h2, const_cast<double**>(&f), &cur, &next, &boards, &plan.patches, &plan.regions, &count, &counter};
  CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(held_in_patches<DEPTH>), plan.regions.count(),
                                         kThreads, args, kSharedBytes, stream));
  if (plan.patches.rounds(count) % 2 == 1) std::swap(cur, next);  // the newest field is in next
}

// The plan in words, for jacobi's output.
template <int DEPTH>
std::string layout_of(const Plan& plan) {
  const Patches& p = plan.patches;
  const Regions& r = plan.regions;
  const std::string regions = std::to_string(r.count()) + " regions of up to " + std::to_string(r.width) + " x " +
                              std::to_string(r.height) + " points, edges traded every " + std::to_string(DEPTH) + " iterations";
  if (p.count() == 1) return "the whole field held on chip by " + regions;
  return "the field too large to hold whole: " + std::to_string(p.across) + " x " + std::to_string(p.down) +
         " patches of up to " + std::to_string(p.width) + " x " + std::to_string(p.height) + " points held in turn, " +
         std::to_string(p.ring) + " iterations each, by " + regions;
}

// The depth of the cheapest plan (4 or 8: the deeper, the wider each region's ring).
int own_depth(int N) {
  const Plan at4 = plan_at<4>(N);
  return at4.regions.count() > 0 && cost_of<4>(at4.patches) < cost_of<8>(plan_at<8>(N).patches) ? 4 : 8;
}

// The solve at depth DEPTH, on a GPU that offers cooperative launches: the plan made once and
// handed to every launch; the plan in words goes with the result, for jacobi's output.
template <int DEPTH>
SolveResult solve_at(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  int supported = 0, device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, device));
  if (!supported)
    throw tut::NoDeviceError("gpu5 needs a cooperative launch (all its blocks on the GPU at once), which this GPU does not offer");
  if (!shared_fits())
    throw tut::NoDeviceError("gpu5 holds regions of " + std::to_string(kSharedBytes / 1024) +
                             " KiB of shared memory a block, more than this GPU gives a block");
  const Plan plan = plan_at<DEPTH>(p.grid.N);
  if (plan.regions.count() == 0)
    throw tut::UsageError("gpu5 finds no patches of N = " + std::to_string(p.grid.N) +
                          " that this GPU's blocks can hold at depth " + std::to_string(DEPTH));
  SolveResult result = iterate_on_device<advance<DEPTH>>(p, u, o, plan);
  result.layout = layout_of<DEPTH>(plan);
  return result;
}

PoissonSolve at_depth(int depth) {
  return solve_at_depth<solve_at<2>, solve_at<4>, solve_at<8>, solve_at<16>>("gpu5", depth);
}

}  // namespace

const PoissonCode poisson_gpu5{solve_at_chosen_depth<own_depth, at_depth>, own_depth, at_depth};
