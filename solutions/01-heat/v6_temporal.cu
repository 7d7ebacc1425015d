// heat v6: temporal blocking, DEPTH = 3 steps fused into one march up z.
//   run:  build/chapters/01-heat/heat3d --size 512 --stage v5,v6
//   test: meson test -C build heat-v6 --print-errorlogs
// Change from v5: a march no longer stops at one step. Each plane that arrives (level 0) is
// advanced one step (level 1) as soon as the planes above and below it are there, that one
// another step (level 2), and so on to level DEPTH, which is written out. Each level keeps its
// last three planes in registers and its middle plane in a shared tile. A cell at level l needs
// its neighbours at level l - 1, so a level is right only l cells away from the tile's edge:
// the block holds a halo of DEPTH cells on each side in x and y, and writes only its middle.
// Why it should help: one pass over memory (8 bytes per cell) buys DEPTH steps, so the bytes
// per update fall to about 8 / DEPTH, and the single-step bound (copy bandwidth / 8 B) no
// longer applies. Runs whose step count DEPTH does not divide end with a shallower pass.
// What still limits it: the halo. A 32 x 32 block at DEPTH 3 writes 26 x 26 of its 1024 cells,
// so it computes 1.5x the updates it keeps, with DEPTH __syncthreads per plane: on the H200
// the instructions, not DRAM (18% busy), are the limit.
#include <algorithm>
#include <stdexcept>
#include <utility>

#include "check.h"
#include "heat.h"

namespace {

constexpr dim3 kBlock{32, 32, 1};
constexpr dim3 kSmallestBlock{3, 3, 1};  // a halo of one cell on each side and one cell to write
constexpr int kMinPlanes = 16;           // a column first loads 2 * DEPTH planes that it does not write
constexpr int kAhead = 4;                // planes loaded ahead of the one arriving: loads in flight

template <int DEPTH>  // bounds: registers that let blocks of up to 1024 threads launch
__global__ void __launch_bounds__(1024) fused_kernel(const HeatGrid g, const float coeff, const float* __restrict__ in,
                             float* __restrict__ out, const int planes) {
  // Per z-layer of threads: for each level below DEPTH, two tiles of blockDim.x x blockDim.y
  // (two, so that one __syncthreads per level and plane is enough).
  extern __shared__ float tiles[];
  const int width = blockDim.x, tile_cells = blockDim.x * blockDim.y;
  float* const my_tiles = tiles + threadIdx.z * 2 * DEPTH * tile_cells;
  // The block writes (blockDim.x - 2 DEPTH) x (blockDim.y - 2 DEPTH) cells; its threads cover
  // them and a halo of DEPTH cells around them. This thread's cell may lie outside the grid.
  const int i = 1 + blockIdx.x * (blockDim.x - 2 * DEPTH) + threadIdx.x - DEPTH;
  const int j = 1 + blockIdx.y * (blockDim.y - 2 * DEPTH) + threadIdx.y - DEPTH;
  const int k_first = 1 + (blockIdx.z * blockDim.z + threadIdx.z) * planes;  // first plane it writes
  const int k_end = min(k_first + planes, g.nz - 1);
  const bool in_grid = i >= 0 && j >= 0 && i < g.nx && j < g.ny && k_first < k_end;
  const bool interior = i >= 1 && j >= 1 && i <= g.nx - 2 && j <= g.ny - 2;
  const bool has_neighbours =  // in the tile; at its edge a level's values go stale
      threadIdx.x >= 1 && threadIdx.x + 1 < blockDim.x && threadIdx.y >= 1 && threadIdx.y + 1 < blockDim.y;
  const bool writes = interior && threadIdx.x >= DEPTH && threadIdx.x + DEPTH < blockDim.x &&
                      threadIdx.y >= DEPTH && threadIdx.y + DEPTH < blockDim.y;
  const int t = threadIdx.y * width + threadIdx.x;
  const int plane = g.nx * g.ny, column = in_grid ? j * g.nx + i : 0;
  auto load = [&](int k) { return in_grid && k >= 0 && k < g.nz ? in[k * plane + column] : 0.0f; };

  // queue[l] holds level l at three consecutive planes; after plane p arrives, level l's newest
  // plane is p - l, and level l + 1 is computed for plane p - l - 1.
  float queue[DEPTH][3] = {};
  const int p_first = k_first - DEPTH;  // the lowest plane the block's first written plane depends on
  // Level 0 arrives from memory kAhead planes after its load is issued. As in v5, the loop is
  // unrolled by kAhead so that the slots rotate by renaming, never by copying a loading register.
  float arriving[kAhead];
#pragma unroll
  for (int a = 0; a < kAhead; ++a) arriving[a] = load(p_first + a);
  for (int n0 = 0; n0 < planes + 2 * DEPTH; n0 += kAhead) {
#pragma unroll
    for (int u = 0; u < kAhead; ++u) {
      const int n = n0 + u, p = p_first + n;
      queue[0][0] = queue[0][1];
      queue[0][1] = queue[0][2];
      queue[0][2] = arriving[u];
      arriving[u] = load(p + kAhead);
#pragma unroll
      for (int l = 0; l < DEPTH; ++l) {
        const int m = p - l - 1;  // the plane that level l + 1 reaches now
        // EXERCISE: advance plane m from level l to level l + 1: stage level l's middle plane in
        //   its tile, wait for the block, and update the cell where it is interior and has its
        //   x-y neighbours in the tile (else it keeps its value: boundary, or stale halo)
        float* const tile = my_tiles + (2 * l + (n & 1)) * tile_cells;
        tile[t] = queue[l][1];
        __syncthreads();
        float next = queue[l][1];
        if (in_grid && interior && has_neighbours && m >= 1 && m <= g.nz - 2)
          next = queue[l][1] + coeff * ((tile[t - 1] + tile[t + 1]) + (tile[t - width] + tile[t + width]) +
                                        (queue[l][0] + queue[l][2]) - 6.0f * queue[l][1]);
        // SKELETON: const float next = queue[l][1];

        if (l + 1 < DEPTH) {
          queue[l + 1][0] = queue[l + 1][1];
          queue[l + 1][1] = queue[l + 1][2];
          queue[l + 1][2] = next;
        } else if (writes && m >= k_first && m < k_end) {
          out[m * plane + column] = next;
        }
      }
    }
  }
}

// One pass of `depth` fused steps from in to out.
template <int DEPTH>
void pass(const HeatGrid& g, float coeff, const float* in, float* out, dim3 block, cudaStream_t stream) {
  const dim3 tiles(blocks_for(g.nx - 2, block.x - 2 * DEPTH), blocks_for(g.ny - 2, block.y - 2 * DEPTH));
  const int planes = planes_per_column(g.nz - 2, tiles.x * tiles.y * block.z, kMinPlanes);
  const dim3 grid(tiles.x, tiles.y, blocks_for(blocks_for(g.nz - 2, planes), block.z));
  const size_t shared = 2 * DEPTH * block.z * block.x * block.y * sizeof(float);
  static const bool carved = (prefer_shared_memory(fused_kernel<DEPTH>), true);
  (void)carved;
  fused_kernel<DEPTH><<<grid, block, shared, stream>>>(g, coeff, in, out, planes);
  CUDA_CHECK_LAUNCH();
}

using Pass = void (*)(const HeatGrid&, float coeff, const float* in, float* out, dim3 block, cudaStream_t stream);
constexpr Pass kPass[] = {pass<1>, pass<2>, pass<3>, pass<4>};  // kPass[d - 1]: depth d

template <int DEPTH>
float* run(const HeatGrid& g, float coeff, float* a, float* b, int steps, dim3 block, cudaStream_t stream) {
  // A block narrower than 2 DEPTH + 1 cells has no cell to write at that depth: go shallower.
  const int depth = std::min(DEPTH, (int(std::min(block.x, block.y)) - 1) / 2);
  if (depth < 1) throw std::invalid_argument("heat v6 needs blocks of at least 3x3 threads in x and y");
  if (g.interior_cells() == 0) return a;  // nothing to update (and a grid of 0 blocks is an error)
  // EXERCISE: run `steps` steps in passes of `depth` fused steps; the last pass fuses what is left
  for (int done = 0; done < steps;) {
    const int fused = std::min(depth, steps - done);
    kPass[fused - 1](g, coeff, a, b, block, stream);
    std::swap(a, b);
    done += fused;
  }

  return a;
}

// The sweep of fusion depths that chose DEPTH = 3 on the H200 (see the lesson).
constexpr BlockLimits kLimits{kSmallestBlock};
constexpr HeatVariant kSweep[] = {{"v6_depth2", "v6, 2 steps fused", run<2>, kLimits},
                                  {"v6_depth4", "v6, 4 steps fused", run<4>, kLimits}};

}  // namespace

const HeatCode heat_v6{run<3>, kBlock, kLimits, kSweep};
