// Chapter 03-poisson: the field held in registers for a whole run, a region per block (gpu5,
// for the fields the GPU's registers can hold: on an H100, up to about 1040^2 with a ring of 8,
// 1140^2 with a ring of 4).
//
// A block of kWarps warps holds a region of the field and a ring of HALO points around it:
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
// after a grid barrier (gpu5's) loads its own ring from theirs.
#pragma once

#include "poisson.h"

namespace poisson_resident {

constexpr int kPerLane = 4, kColumns = 32 * kPerLane;  // a warp spans the region with its ring
constexpr int kWarps = 12, kRows = 8;  // rows per warp: u takes 64 of a thread's 168 registers
constexpr int kThreads = 32 * kWarps, kHeight = kWarps * kRows;

// How the N x N interior is cut: `across` x `down` regions of width x height points (the last
// ones narrower where N is not a multiple).
struct Regions {
  int across = 0, down = 0, width = 0, height = 0;
  __host__ __device__ int count() const { return across * down; }
};

// The regions, one per block of at most `blocks` (those the GPU holds at once), that leave
// each block the fewest points to hold with a ring of HALO; count() == 0 where even `blocks`
// regions are too large for a block's kColumns x kHeight.
template <int HALO>
Regions regions_for(int N, int blocks) {
  Regions best;
  long fewest = -1;
  for (int across = 1; across <= std::min(N, blocks); ++across) {
    const int width = int(blocks_for(N, across)), height = int(blocks_for(N, std::min(N, blocks / across)));
    if (width + 2 * HALO > kColumns || height + 2 * HALO > kHeight) continue;
    const long held = long(width + 2 * HALO) * (height + 2 * HALO);
    if (fewest < 0 || held < fewest) {
      fewest = held;
      best = {int(blocks_for(N, width)), int(blocks_for(N, height)), width, height};
    }
  }
  return best;
}

// A block's shared memory: its warps' edge rows, [iteration parity][0: a warp's first row, 1:
// its last][warp], and the source of the points each lane holds.
struct Shared {
  double edges[2][2][kWarps][kColumns];
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
  // Loads the region and its ring from u; sorts the thread's points once, into bit masks
  // (bit r * kPerLane + j for row r, column j), so that no iteration recomputes a position.
  __device__ __forceinline__ Region(int N, double h2, const Regions& regions, const double* __restrict__ f,
                                    const double* __restrict__ u)
      : shared_(block_shared()), w_(N + 2) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    lane_ = lane;
    warp_ = warp;
    const int first_x = 1 + int(blockIdx.x % regions.across) * regions.width;
    const int first_y = 1 + int(blockIdx.x / regions.across) * regions.height;
    const int last_x = min(first_x + regions.width, N + 1) - 1, last_y = min(first_y + regions.height, N + 1) - 1;
    const int x0 = first_x - HALO + kPerLane * lane, y0 = first_y - HALO + kRows * warp;  // the thread's first point
    first_at_ = long(y0) * w_ + x0;  // negative in a ring beyond the boundary, where nothing is read
    unsigned in_field = 0;
#pragma unroll
    for (int r = 0; r < kRows; ++r)
#pragma unroll
      for (int j = 0; j < kPerLane; ++j) {
        const int x = x0 + j, y = y0 + r;
        const bool held = x <= last_x + HALO && y <= last_y + HALO;
        const bool interior = held && x >= 1 && x <= N && y >= 1 && y <= N;
        const bool region = x >= first_x && x <= last_x && y >= first_y && y <= last_y;
        const bool band = region && (x < first_x + HALO || x > last_x - HALO || y < first_y + HALO || y > last_y - HALO);
        // Boundary points keep their value, as does the ring's outer edge (no neighbour beyond).
        const bool edge = x == first_x - HALO || x == last_x + HALO || y == first_y - HALO || y == last_y + HALO;
        const unsigned b = bit(r, j);
        if (held && x >= 0 && x <= N + 1 && y >= 0 && y <= N + 1) in_field |= b;
        if (interior && !edge) updated_ |= b;
        if (interior && !region) ring_ |= b;
        if (region) region_ |= b;
        if (band) band_ |= b;
        const long inside = long(min(max(y, 0), N + 1)) * w_ + min(max(x, 0), N + 1);  // read or not: the compiler may
        shared_.quarter_source[warp][r][j][lane] = interior ? 0.25 * h2 * __ldg(f + inside) : 0.0;  // load before the test
      }
    busy_ = __any_sync(0xffffffffu, updated_ != 0);
    load(u, in_field);
  }

  // One Jacobi iteration of every held point; the ring's outer points go stale.
  __device__ __forceinline__ void iterate() {
    auto& mine = shared_.edges[parity_];
    parity_ ^= 1;  // the other buffer next time: its last readers pass the barrier below first
    const int lane = lane_;
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      mine[0][warp_][kPerLane * lane + j] = u_[0][j];
      mine[1][warp_][kPerLane * lane + j] = u_[kRows - 1][j];
    }
    __syncthreads();
    if (!busy_) return;  // a warp below the region's last rows (small fields): nothing to compute
    double above[kPerLane], below[kPerLane];  // the rows beside the warp's (first and last warp: unused)
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      above[j] = mine[1][max(warp_ - 1, 0)][kPerLane * lane + j];
      below[j] = mine[0][min(warp_ + 1, kWarps - 1)][kPerLane * lane + j];
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
          u_[r][j] = fma(0.25, (left + right) + (above[j] + down), shared_.quarter_source[warp_][r][j][lane]);
        above[j] = here[j];
      }
    }
  }

  // The region's points within HALO of its edge, which the neighbours' rings hold, into `board`.
  __device__ __forceinline__ void store_band(double* board) const { store(board, band_); }

  // The ring's interior points from `board`, where the neighbours stored their bands (after
  // the grid barrier).
  __device__ __forceinline__ void load_ring(const double* board) { load(board, ring_); }

  __device__ __forceinline__ void store_region(double* out) const { store(out, region_); }

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
  int w_, lane_, warp_;
  long first_at_;  // the index in the fields of the thread's first point
  unsigned updated_ = 0, ring_ = 0, region_ = 0, band_ = 0;
  int parity_ = 0;  // which half of shared_.edges this iteration writes
  bool busy_;       // some lane of the warp updates a point
  double u_[kRows][kPerLane] = {};
};

}  // namespace poisson_resident
