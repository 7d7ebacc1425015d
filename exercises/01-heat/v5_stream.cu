// Exercise skeleton generated from solutions/01-heat/v5_stream.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// heat v5: a block owns an x-y tile of interior cells and marches it up z (2.5D blocking).
//   run:  build/chapters/01-heat/heat3d --size 512 --stage v4,v5
//   test: meson test -C build heat-v5
// Change from v4: one long march per column instead of Z_FACTOR cells. The plane being
// updated is staged in shared memory, so the x- and y-neighbours come from the tile, not from
// L1 or L2; the z-neighbours slide along in registers (a register queue), and the loads of the
// planes above are issued AHEAD planes before they are needed.
// Why it should help: each cell is loaded from memory once per step (plus a thin halo around
// each tile), each update costs one shared-memory store and four loads instead of six global
// loads, and several loads per thread are in flight while the tile is computed.
// What still limits it, measured on the H200: instructions. DRAM moves the ideal 8 bytes per
// update, but the bookkeeping of the march (halo roles, the queue, one __syncthreads per plane)
// costs three times v4's instructions, and v5 ends slower than v4: Hopper's L1 already served
// v4's x-y neighbours almost for free. A one-step kernel can at best reach the copy bandwidth.
#include <utility>

#include "check.h"
#include "heat.h"

namespace {

constexpr dim3 kBlock{64, 4, 1};  // two warps per row of the tile: 256 contiguous bytes per load
constexpr int kMinPlanes = 8;     // the shortest z-column worth its start-up loads

// AHEAD: planes loaded ahead, the loads each thread keeps in flight. Bounds of 1024 threads per
// block: the compiler keeps to the registers that let any block shape --block allows launch.
template <int AHEAD>
__global__ void __launch_bounds__(1024) heat_kernel(const HeatGrid g, const float coeff, const float* __restrict__ in,
                            float* __restrict__ out, const int planes) {
  // Each z-layer of threads (threadIdx.z) marches its own column of `planes` planes, with two
  // tiles of (blockDim.x + 2) x (blockDim.y + 2) cells: the plane updated now and the next one.
  extern __shared__ float tiles[];
  const int pitch = blockDim.x + 2, tile_cells = pitch * (blockDim.y + 2);
  float* const my_tiles = tiles + 2 * threadIdx.z * tile_cells;
  const int i = 1 + blockIdx.x * blockDim.x + threadIdx.x;  // this thread's interior cell
  const int j = 1 + blockIdx.y * blockDim.y + threadIdx.y;
  const int k_first = 1 + (blockIdx.z * blockDim.z + threadIdx.z) * planes;
  const int k_end = min(k_first + planes, g.nz - 1);  // one past this column's last interior plane
  const bool inside = i <= g.nx - 2 && j <= g.ny - 2 && k_first < k_end;
  const int row = g.nx, plane = g.nx * g.ny;
  const int first = inside ? (k_first * g.ny + j) * g.nx + i : 0;
  const int t = (threadIdx.y + 1) * pitch + threadIdx.x + 1;  // this cell in the tile
  // The tile's halo: the first and the last thread of each row load the cells left and right
  // of it, the first and the last row the cells in front and behind. "Last" is the last
  // thread inside the grid, which on a grid that the tile does not divide is not the block's.
  const bool left = threadIdx.x == 0, right = threadIdx.x == blockDim.x - 1 || i == g.nx - 2;
  const bool front = threadIdx.y == 0, back = threadIdx.y == blockDim.y - 1 || j == g.ny - 2;
  // What this thread loads of plane k: its own cell (the centre) and its halo cells, only
  // where they exist.
  struct Loads {
    float centre, left, right, front, back;
  };
  auto load = [&](int k) {
    Loads l{0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    if (!inside || k > k_end) return l;
    const float* const at = in + first + (k - k_first) * plane;
    l.centre = at[0];
    if (left) l.left = at[-1];
    if (right) l.right = at[1];
    if (front) l.front = at[-row];
    if (back) l.back = at[row];
    return l;
  };

  // The register queue: planes k, k + 1, ..., k + AHEAD (and the centre of the plane below),
  // each loaded AHEAD planes before it is staged, so that the loads' latency overlaps the work.
  // The loop over planes is unrolled by the queue's length so that sliding the queue is a
  // renaming of registers: a copy from a register that a load is still filling would wait for
  // the load, and the loads ahead would be in flight for one plane only.
  constexpr int kSlots = AHEAD + 1;
  float below = inside ? in[first - plane] : 0.0f;
  Loads queue[kSlots];
#pragma unroll
  for (int a = 0; a < kSlots; ++a) queue[a] = load(k_first + a);
  for (int n0 = 0; n0 < planes; n0 += kSlots) {
#pragma unroll
    for (int u = 0; u < kSlots; ++u) {  // slot u holds plane k now, slot u + 1 the plane above
      const int n = n0 + u, k = k_first + n;
      float* const tile = my_tiles + (n & 1) * tile_cells;  // two tiles: one __syncthreads per plane
      const float centre = queue[u].centre, above = queue[(u + 1) % kSlots].centre;
      // TODO(exercise): stage plane k (this thread's centre and its halo cells) in the tile, wait for
      //   the whole block, then update the cell from the tile (x, y) and the registers (z)

      below = centre;
      queue[u] = load(k + kSlots);  // the slot moves to the top of the queue
    }
  }
}

template <int AHEAD>
float* run(const HeatGrid& g, float coeff, float* a, float* b, int steps, dim3 block, cudaStream_t stream) {
  if (g.interior_cells() == 0) return a;  // nothing to update (and a grid of 0 blocks is an error)
  const dim3 tiles(blocks_for(g.nx - 2, block.x), blocks_for(g.ny - 2, block.y));
  const int planes = planes_per_column(g.nz - 2, tiles.x * tiles.y * block.z, kMinPlanes);
  const dim3 grid(tiles.x, tiles.y, blocks_for(blocks_for(g.nz - 2, planes), block.z));
  const size_t shared = 2 * block.z * (block.x + 2) * (block.y + 2) * sizeof(float);
  static const bool carved = (prefer_shared_memory(heat_kernel<AHEAD>), true);
  (void)carved;
  for (int s = 0; s < steps; ++s) {
    heat_kernel<AHEAD><<<grid, block, shared, stream>>>(g, coeff, a, b, planes);
    CUDA_CHECK_LAUNCH();
    std::swap(a, b);
  }
  return a;
}

// The sweep of loads in flight that chose AHEAD = 6 on the H200 (see the lesson).
constexpr HeatVariant kSweep[] = {{"v5_ahead1", "v5, 1 plane loaded ahead", run<1>},
                                  {"v5_ahead2", "v5, 2 planes loaded ahead", run<2>},
                                  {"v5_ahead3", "v5, 3 planes loaded ahead", run<3>}};

}  // namespace

const HeatCode heat_v5{run<6>, kBlock, {1, 1, 1}, kSweep};
