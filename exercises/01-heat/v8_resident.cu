// Exercise skeleton generated from solutions/01-heat/v8_resident.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// heat v8: the small problem kept on chip. One cooperative kernel runs every step; each block
// holds its box of the field in registers from the first step to the last.
//   run:  build-ex/chapters/01-heat/heat3d --stage v4,v7,v8
//   test: meson test -C build-ex heat-v8 heat-v8-idea --print-errorlogs
// Change from v7: no launch per step at all, and no trip through DRAM per step. The grid of
// boxes is launched once, cooperatively (every block resident at once), and loops over the
// steps. A thread owns a column of kColumn cells up z in registers; the block's threads cover
// a box of block.x x block.y x (block.z kColumn) cells. Each step, a thread puts its column in
// the block's shared tile, where its x-y neighbours read it, and takes the planes below and
// above its column from memory; the faces of the box, the only values another block reads,
// are written out after the update; then the whole grid waits at one barrier
// (cooperative_groups' grid.sync()). Two buffers alternate as the faces' mailboxes, so a
// block that runs ahead never overwrites faces that a slower one still reads.
// Why it should help: on the seed's 128^3 field (8 MiB) a step of v4 or v7 costs a kernel's
// start and tail, a few microseconds, for very little work. Here a step costs the update from
// registers and shared memory, the faces through L2 (a few percent of the field), and one grid
// barrier (heat3d notes what one costs on this GPU).
// What still limits it: the barrier and the faces' round trip through L2 every step, and the
// shared tile (each update reads four neighbours from it). The field must fit: the boxes must
// all be resident, one block of 1024 threads per multiprocessor, 16 K cells each (about 2.2
// million cells on 132 SMs). A field that does not fit runs v5 instead, and says so once.
#include <cooperative_groups.h>

#include <cstdio>

#include "check.h"
#include "heat.h"

namespace cg = cooperative_groups;

namespace {

constexpr dim3 kBlock{32, 32, 1};  // a warp along x, 32 rows: one block of 1024 threads per SM
constexpr int kColumn = 16;        // cells a thread keeps, up z: 16 K cells per block

template <int COLUMN>
__global__ void __launch_bounds__(1024, 1)
    resident_kernel(const HeatGrid g, const float coeff, float* a, float* b, const int steps) {
  cg::grid_group grid = cg::this_grid();
  extern __shared__ float tile[];  // per plane of the box, its cells and a ring of one cell
  const int bx = blockDim.x, by = blockDim.y, pitch = bx + 2, plane_cells = pitch * (by + 2);
  const int i0 = 1 + blockIdx.x * bx, j0 = 1 + blockIdx.y * by;  // the box's first interior cell
  const int k0 = 1 + blockIdx.z * blockDim.z * COLUMN;
  const int i = i0 + threadIdx.x, j = j0 + threadIdx.y, k_first = k0 + threadIdx.z * COLUMN;
  const bool xy_in_grid = i < g.nx && j < g.ny, xy_interior = i <= g.nx - 2 && j <= g.ny - 2;
  const size_t plane = size_t(g.nx) * g.ny, column = size_t(j) * g.nx + i;
  const int me = (threadIdx.y + 1) * pitch + threadIdx.x + 1;  // my cell in a plane of the tile
  const bool on_xy_face = threadIdx.x == 0 || threadIdx.x == bx - 1 || threadIdx.y == 0 || threadIdx.y == by - 1;

  float c[COLUMN];  // my cells, k_first .. k_first + COLUMN - 1 (0 outside the grid)
#pragma unroll
  for (int z = 0; z < COLUMN; ++z) c[z] = xy_in_grid && k_first + z < g.nz ? a[(k_first + z) * plane + column] : 0.0f;

  const int ring = 2 * (bx + by), box_planes = blockDim.z * COLUMN;
  const int thread = (threadIdx.z * by + threadIdx.y) * bx + threadIdx.x, threads = bx * by * blockDim.z;
  float* from = a;  // the buffer whose faces hold the field before this step
  float* to = b;
  for (int step = 0; step < steps; ++step) {
#pragma unroll
    for (int z = 0; z < COLUMN; ++z) tile[(threadIdx.z * COLUMN + z) * plane_cells + me] = c[z];
    // The ring around the box, plane by plane: the neighbouring boxes' faces (or the boundary).
    // __ldcg reads through L2 only: the L1 may hold what these cells were two steps ago.
    for (int h = thread; h < ring * box_planes; h += threads) {
      const int r = h % ring, p = h / ring, k = k0 + p;
      int ti, tj;  // the ring cell in the tile's coordinates (0 .. bx + 1, 0 .. by + 1)
      if (r < bx) ti = 1 + r, tj = 0;
      else if (r < 2 * bx) ti = 1 + r - bx, tj = by + 1;
      else if (r < 2 * bx + by) ti = 0, tj = 1 + r - 2 * bx;
      else ti = bx + 1, tj = 1 + r - 2 * bx - by;
      const int gi = i0 - 1 + ti, gj = j0 - 1 + tj;
      if (gi < g.nx && gj < g.ny && k < g.nz) tile[p * plane_cells + tj * pitch + ti] = __ldcg(&from[k * plane + gj * size_t(g.nx) + gi]);
    }
    const float below = xy_in_grid && k_first - 1 < g.nz ? __ldcg(&from[(k_first - 1) * plane + column]) : 0.0f;
    const float above = xy_in_grid && k_first + COLUMN < g.nz ? __ldcg(&from[(k_first + COLUMN) * plane + column]) : 0.0f;
    __syncthreads();
    // TODO(exercise): update my interior cells in place (the x-y neighbours from the tile, the z
    //   neighbours from my column, `below` and `above`), then write the box's faces to `to`:
    //   all my cells if I am on the box's x-y edge, else my lowest and highest cell

    grid.sync();  // every face of this step is written (and the tile is free again)
    float* const written = to;
    to = from;
    from = written;
  }
  // The field of the last step, whole, into the buffer that holds its faces.
#pragma unroll
  for (int z = 0; z < COLUMN; ++z)
    if (xy_interior && k_first + z <= g.nz - 2) from[(k_first + z) * plane + column] = c[z];
}

// How many blocks of `threads` threads and `shared` bytes of tile can be resident at once.
int resident_blocks(const void* kernel, int threads, size_t shared) {
  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared));
  return per_sm * sms;
}

template <int COLUMN>
float* run(const HeatGrid& g, float coeff, float* a, float* b, int steps, dim3 block, cudaStream_t stream) {
  if (g.interior_cells() == 0 || steps == 0) return a;
  const dim3 boxes(blocks_for(g.nx - 2, block.x), blocks_for(g.ny - 2, block.y),
                   blocks_for(g.nz - 2, block.z * COLUMN));
  const size_t shared = size_t(block.z) * COLUMN * (block.x + 2) * (block.y + 2) * sizeof(float);
  const auto kernel = resident_kernel<COLUMN>;
  static const bool opted_in = [&] {  // tiles past 48 KiB must be asked for
    int device = 0, most = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, most));
    return true;
  }();
  (void)opted_in;
  const long long needed = (long long)boxes.x * boxes.y * boxes.z;
  const int fit = resident_blocks(reinterpret_cast<const void*>(kernel), int(block.x * block.y * block.z), shared);
  if (needed > fit) {  // not on chip: the best streaming stage, in its own block shape
    static bool told = false;
    if (!told) std::fprintf(stderr, "heat v8: %dx%dx%d needs %lld resident blocks, this GPU holds %d: running v5\n",
                            g.nx, g.ny, g.nz, needed, fit);
    told = true;
    return heat_v5.run(g, coeff, a, b, steps, heat_v5.block, stream);
  }
  HeatGrid grid = g;
  void* args[] = {&grid, &coeff, &a, &b, &steps};
  CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), boxes, block, args, shared, stream));
  CUDA_CHECK_LAUNCH();
  return steps % 2 ? b : a;
}

}  // namespace

const HeatCode heat_v8{run<kColumn>, kBlock};
