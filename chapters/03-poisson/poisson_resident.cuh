// Chapter 03-poisson: the field held in registers, a region per block (gpu5): the whole field
// for a whole run where the blocks can hold it (on an H100, up to about 1040^2 with a ring of 8,
// 1140^2 with a ring of 4), else one patch of it after another (Patches).
//
// A block of kWarps warps holds a region of the patch and a ring of HALO points around it:
// lane l of warp w holds the columns 4l .. 4l + 3 and the rows kRows w .. kRows w + kRows - 1
// of the region with its ring, u in registers from the first iteration to the last, h^2 f / 4
// in shared memory (no registers are left for it), laid out lane after lane so that a warp
// reads 32 consecutive values (read from f itself, a lane's four values make a warp's load span
// 1 KiB: gpu5 ran 1.7x slower at 1024^2, results/h100_gpu5_f_in_cache_or_shared.csv).
// An iteration needs from other threads only the columns beside the lane's four (two shuffles
// per row, as in poisson_strip.cuh) and the rows just above and below the warp's (shared
// memory, written by the warps beside it, one block barrier between): it reads and writes no
// global memory. Only the ring goes stale, one point deeper at every iteration (its outer
// neighbours are not in the block), so every HALO iterations the blocks trade edges through
// L2: each stores the band of its region that its neighbours' rings cover, HALO deep, and
// after a grid barrier (gpu5's) loads its own ring from theirs. A patch's outer edge goes
// stale the same way, one point deeper at every iteration, so that a patch held with a ring of
// R points is right inside that ring for R iterations.
#pragma once

#include "poisson.h"

namespace poisson_resident {

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

}  // namespace poisson_resident
