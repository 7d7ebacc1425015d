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
// What still limits it: it is a one-step kernel, so it can at best move 8 bytes per update at
// the copy bandwidth; the halo and the __syncthreads per plane cost a few percent.
#include <utility>

#include "check.h"
#include "heat.h"

namespace {

constexpr dim3 kBlock{32, 8, 1};  // one warp per row of the tile: 128 contiguous bytes per load
constexpr int kMinPlanes = 8;     // the shortest z-column worth its start-up loads

template <int AHEAD>  // planes of z-neighbours loaded ahead: the loads each thread keeps in flight
__global__ void heat_kernel(const HeatGrid g, const float coeff, const float* __restrict__ in,
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
  // Plane k of this thread's column, and its halo, loaded only where it exists.
  auto cell = [&](int k, int offset) { return inside && k <= k_end ? in[first + (k - k_first) * plane + offset] : 0.0f; };

  float below = cell(k_first - 1, 0), centre = cell(k_first, 0), ahead[AHEAD];
#pragma unroll
  for (int a = 0; a < AHEAD; ++a) ahead[a] = cell(k_first + 1 + a, 0);
  float halo_left = left ? cell(k_first, -1) : 0, halo_right = right ? cell(k_first, 1) : 0;
  float halo_front = front ? cell(k_first, -row) : 0, halo_back = back ? cell(k_first, row) : 0;
  for (int n = 0; n < planes; ++n) {
    const int k = k_first + n;
    float* const tile = my_tiles + (n & 1) * tile_cells;  // two tiles: one __syncthreads per plane
    const float above = ahead[0];
    // EXERCISE: stage plane k (this thread's centre and its halo cells) in the tile, wait for
    //   the whole block, then update the cell from the tile (x, y) and the registers (z)
    if (inside && k < k_end) {
      tile[t] = centre;
      if (left) tile[t - 1] = halo_left;
      if (right) tile[t + 1] = halo_right;
      if (front) tile[t - pitch] = halo_front;
      if (back) tile[t + pitch] = halo_back;
    }
    __syncthreads();
    if (inside && k < k_end)
      out[first + n * plane] = centre + coeff * ((tile[t - 1] + tile[t + 1]) + (tile[t - pitch] + tile[t + pitch]) +
                                                  (below + above) - 6.0f * centre);

    // Slide the queue up one plane and start the loads the coming planes need.
    below = centre;
    centre = above;
#pragma unroll
    for (int a = 0; a + 1 < AHEAD; ++a) ahead[a] = ahead[a + 1];
    ahead[AHEAD - 1] = cell(k + 2 + AHEAD - 1, 0);
    if (left) halo_left = cell(k + 1, -1);
    if (right) halo_right = cell(k + 1, 1);
    if (front) halo_front = cell(k + 1, -row);
    if (back) halo_back = cell(k + 1, row);
  }
}

template <int AHEAD>
float* run(const HeatGrid& g, float coeff, float* a, float* b, int steps, dim3 block, cudaStream_t stream) {
  if (g.interior_cells() == 0) return a;  // nothing to update (and a grid of 0 blocks is an error)
  const dim3 tiles(blocks_for(g.nx - 2, block.x), blocks_for(g.ny - 2, block.y));
  const int planes = planes_per_column(g.nz - 2, tiles.x * tiles.y * block.z, kMinPlanes);
  const dim3 grid(tiles.x, tiles.y, blocks_for(blocks_for(g.nz - 2, planes), block.z));
  const size_t shared = 2 * block.z * (block.x + 2) * (block.y + 2) * sizeof(float);
  for (int s = 0; s < steps; ++s) {
    heat_kernel<AHEAD><<<grid, block, shared, stream>>>(g, coeff, a, b, planes);
    CUDA_CHECK_LAUNCH();
    std::swap(a, b);
  }
  return a;
}

// The sweep of loads in flight that chose AHEAD = 2 on the H200 (see the lesson).
constexpr HeatVariant kSweep[] = {{"v5_ahead1", "v5, 1 plane loaded ahead", run<1>},
                                  {"v5_ahead4", "v5, 4 planes loaded ahead", run<4>}};

}  // namespace

const HeatCode heat_v5{run<2>, kBlock, {1, 1, 1}, kSweep};
