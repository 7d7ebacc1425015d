// The GPU stages of chapter 01-heat against the tests' own reference (run by the main in
// gpu_test_main.cpp, which skips without a GPU), and deliberately wrong kernels that the
// checks must reject. v6's and v8's hand-overs done wrong (one edge buffer, one mailbox) are
// those stages built without that step: the stress suite's (meson.build, stress_removals).
#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "check.h"
#include "path_taken.h"
#include "heat_test_support.h"

const std::vector<const HeatStage*> gpu_stages = tut::stages_on(heat_stages(), tut::Side::gpu);
INSTANTIATE_TEST_SUITE_P(heat, HeatStageTest, testing::ValuesIn(gpu_stages), stage_param_name<HeatStage>);

class HeatGpuStageTest : public HeatStageTest {};
INSTANTIATE_TEST_SUITE_P(heat, HeatGpuStageTest, testing::ValuesIn(gpu_stages), stage_param_name<HeatStage>);

// The driver's --block lets any shape run any stage: shapes that divide nothing must work.
TEST_P(HeatGpuStageTest, MatchesReferenceWithOddBlockShapes) {
  for (const HeatStage* s : stage_and_variants(*GetParam()))
    for (const dim3 block : {dim3(7, 3, 2), dim3(1, 1, 1), dim3(33, 5, 1), dim3(9, 9, 1)}) {
      testing::AssertionResult ok = testing::AssertionSuccess();
      for (const HeatGrid& g : {HeatGrid{37, 29, 23}, HeatGrid{68, 29, 23}})  // v5: one cell, or 4, per thread
        if (ok) ok = matches_reference(*s, g, 9, block);
      EXPECT_TRUE(ok) << "with block " << shape_text(block);
      if (!ok) break;
    }
}

// Each stage's block shape is its lesson: the one it launches by default is the one the lesson
// gives it (chapters/01-heat/README.md's tour table); a stage the table does not name keeps its own.
TEST_P(HeatGpuStageTest, UsesTheLessonsBlockShape) {
  static const std::map<std::string, std::string> kLessonBlocks = {
      {"v1", "32x1x1"}, {"v2", "64x8x1"}, {"v3", "64x8x1"}, {"v4", "128x4x1"},
      {"v5", "64x4x1"}, {"v6", "64x4x1"}, {"v7", "128x4x1"}, {"v8", "32x16x1"}};
  const HeatStage& s = *GetParam();
  const std::string shape = shape_text(s.code.block);
  const auto lesson = kLessonBlocks.find(s.name);
  if (lesson == kLessonBlocks.end()) return;
  EXPECT_EQ(shape, lesson->second) << "stage " << s.name << " must launch blocks of " << lesson->second
                                   << " (x, y, z), not " << shape << edit_hint(s);
}

// v6 and v8 need all their blocks resident at once; each says which path it took
// (tut::path_taken), and the tests check it: the lesson's paths where the field fits, and where
// it does not, a streaming stage instead, with the right result. v6's wavefront (the variant
// v6_wavefront, which runs it wherever its tiles fit) at its lesson's depth on a field of many
// tiles (4 x 4 tiles of 64 x 32, neither dividing it): 19 steps are 2 passes of the lesson's
// depth-8 kernel and one generic pass of 3; v6 itself runs v5 there (16 tiles keep too few SMs
// busy). v6: 1100 x 1100 cells a plane, 630 tiles (a GPU holds one per SM); v8: rows longer
// than a warp's 128 cells, and 100 x 300 x 300, 722 boxes of 16 rows by 8 planes (a GPU holds
// about one per SM).
void expect_path(const char* stage, const std::string& starts_with) {
  const std::string path = tut::path_taken(stage);
  EXPECT_EQ(path.rfind(starts_with, 0), 0u) << "stage " << stage << " took the path \"" << path << "\", not one starting \""
                                            << starts_with << "\"";
}

const HeatStage& variant_named(const char* stage, const std::string& name) {
  for (const HeatStage* s : stage_and_variants(tut::stage_named(heat_stages(), stage)))
    if (s->name == name) return *s;
  throw std::runtime_error("no variant " + name + " of " + stage);
}

TEST(HeatResident, V6RunsItsLessonsKernelOnAFieldOfManyTiles) {
  const HeatStage& wavefront = variant_named("v6", "v6_wavefront");
  EXPECT_TRUE(matches_reference(wavefront, {200, 100, 20}, 19, wavefront.code.block));
  expect_path("v6", "wavefront of depth 8 on 16 tiles: 2 passes of the lesson's kernel, 1 of the generic one");
  const HeatStage& v6 = tut::stage_named(heat_stages(), "v6");
  EXPECT_TRUE(matches_reference(v6, {200, 100, 20}, 19, v6.code.block));
  expect_path("v6", "v5: 16 tiles, too few to keep the SMs busy");
}

// Where its tiles keep the SMs busy, v6 itself runs the wavefront: a plane of 8 x floor(SMs / 8)
// tiles of 64 x 32 (128 on a GPU of 132 SMs) and 64 planes, 9 steps (one pass of 8, one of 1).
TEST(HeatResident, V6RunsItsWavefrontWhereItsTilesKeepTheSMsBusy) {
  const HeatStage& v6 = tut::stage_named(heat_stages(), "v6");
  const int down = tut::multiprocessor_count() / 8;
  EXPECT_TRUE(matches_reference(v6, {8 * 64, 32 * down, 64}, 9, v6.code.block));
  expect_path("v6", "wavefront of depth 8 on " + std::to_string(8 * down) + " tiles");
}

// v7 replays v4 while the field stays in L2 and v5 beyond: the smallest cube whose two buffers
// take more than half this GPU's L2 (160^3 on an H200's 60 MiB) takes v5's replay.
TEST(HeatResident, V7ReplaysV5WhereTheFieldLeavesTheL2) {
  int device = 0, l2_bytes = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device), cudaSuccess);
  int n = 16;
  while (2.0 * n * n * n * sizeof(float) <= l2_bytes / 2.0) n += 16;
  const HeatStage& v7 = tut::stage_named(heat_stages(), "v7");
  EXPECT_TRUE(matches_reference(v7, {n, n, n}, 50, v7.code.block));  // a graph of 48 steps and 2 more
  expect_path("v7", "v5 replayed");
  EXPECT_TRUE(matches_reference(v7, {n - 16, n - 16, n - 16}, 50, v7.code.block));
  expect_path("v7", "v4 replayed");
}

TEST(HeatResident, V8HoldsAFieldThatFits) {
  const HeatStage& v8 = tut::stage_named(heat_stages(), "v8");
  EXPECT_TRUE(matches_reference(v8, {100, 60, 40}, 7, v8.code.block));
  expect_path("v8", "resident: 20 boxes of 16 rows by 8 planes");
}

TEST(HeatResident, MatchesReferenceWhereTheBlocksCannotAllBeResident) {
  const HeatStage &v6 = tut::stage_named(heat_stages(), "v6"), &v8 = tut::stage_named(heat_stages(), "v8");
  EXPECT_TRUE(matches_reference(v6, {1100, 1100, 4}, 3, v6.code.block));
  expect_path("v6", "v5: 630 tiles");
  EXPECT_TRUE(matches_reference(v8, {400, 30, 50}, 3, v8.code.block));
  expect_path("v8", "v5: rows longer than a warp's");
  EXPECT_TRUE(matches_reference(v8, {100, 300, 300}, 3, v8.code.block));
  expect_path("v8", "v5: not every box resident");
}

namespace {

// Wrong on purpose, each in one way the checks must see.
__global__ void skips_row_end(HeatGrid g, float coeff, const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y,
            k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < 1 || j < 1 || k < 1 || i >= g.nx - 2 || j > g.ny - 2 || k > g.nz - 2) return;  // i >= nx-2: off by one
  const int c = (k * g.ny + j) * g.nx + i, row = g.nx, plane = g.nx * g.ny;
  out[c] = in[c] + coeff * (in[c - 1] + in[c + 1] + in[c - row] + in[c + row] + in[c - plane] + in[c + plane] - 6 * in[c]);
}

__global__ void wrong_neighbour(HeatGrid g, float coeff, const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y,
            k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < 1 || j < 1 || k < 1 || i > g.nx - 2 || j > g.ny - 2 || k > g.nz - 2) return;
  const int c = (k * g.ny + j) * g.nx + i, row = g.nx;
  out[c] = in[c] + coeff * (in[c - 1] + in[c + 1] + in[c - row] + in[c + row] + in[c + row] + in[c - row] - 6 * in[c]);
}

__global__ void writes_boundary(HeatGrid g, float coeff, const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y,
            k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i >= g.nx || j >= g.ny || k >= g.nz) return;
  const int c = (k * g.ny + j) * g.nx + i, row = g.nx, plane = g.nx * g.ny;
  const bool interior = i > 0 && j > 0 && k > 0 && i < g.nx - 1 && j < g.ny - 1 && k < g.nz - 1;
  out[c] = interior ? in[c] + coeff * (in[c - 1] + in[c + 1] + in[c - row] + in[c + row] + in[c - plane] +
                                       in[c + plane] - 6 * in[c])
                    : 0.5f * in[c];
}

template <void (*Kernel)(HeatGrid, float, const float*, float*)>
void launch(const HeatGrid& g, float coeff, const float* in, float* out, dim3 block, cudaStream_t stream) {
  const dim3 grid(blocks_for(g.nx, block.x), blocks_for(g.ny, block.y), blocks_for(g.nz, block.z));
  Kernel<<<grid, block, 0, stream>>>(g, coeff, in, out);
  CUDA_CHECK_LAUNCH();
}

// A tile in shared memory whose halo is loaded by the block's last thread of each row and
// column only: on a grid that the tile does not divide, the last cell inside the grid is not
// the block's last thread, and its neighbour beyond is read from a tile cell nobody wrote.
__global__ void tile_halo_from_block_edge_only(HeatGrid g, float coeff, const float* in, float* out) {
  extern __shared__ float tile[];
  const int pitch = blockDim.x + 2, t = (threadIdx.y + 1) * pitch + threadIdx.x + 1;
  const int i = 1 + blockIdx.x * blockDim.x + threadIdx.x, j = 1 + blockIdx.y * blockDim.y + threadIdx.y,
            k = 1 + blockIdx.z;
  const bool inside = i <= g.nx - 2 && j <= g.ny - 2 && k <= g.nz - 2;
  const int c = (k * g.ny + j) * g.nx + i, row = g.nx, plane = g.nx * g.ny;
  for (int n = threadIdx.y * blockDim.x + threadIdx.x; n < pitch * int(blockDim.y + 2); n += blockDim.x * blockDim.y)
    tile[n] = 0.0f;  // what an unwritten tile cell holds here (in general: whatever was there)
  __syncthreads();
  if (inside) {
    tile[t] = in[c];
    if (threadIdx.x == 0) tile[t - 1] = in[c - 1];
    if (threadIdx.x == blockDim.x - 1) tile[t + 1] = in[c + 1];  // wrong: misses i == nx - 2
    if (threadIdx.y == 0) tile[t - pitch] = in[c - row];
    if (threadIdx.y == blockDim.y - 1 || j == g.ny - 2) tile[t + pitch] = in[c + row];
  }
  __syncthreads();
  if (inside)
    out[c] = tile[t] + coeff * (tile[t - 1] + tile[t + 1] + tile[t - pitch] + tile[t + pitch] + in[c - plane] +
                                in[c + plane] - 6 * tile[t]);
}

// One block per x-y tile of interior cells and interior plane (the two tile kernels below).
dim3 tiles_by_plane(const HeatGrid& g, dim3 block) {
  return dim3(blocks_for(g.nx - 2, block.x), blocks_for(g.ny - 2, block.y), g.nz - 2);
}

void launch_tiled(const HeatGrid& g, float coeff, const float* in, float* out, dim3 block, cudaStream_t stream) {
  if (g.interior_cells() == 0) return;
  const dim3 grid = tiles_by_plane(g, block);
  tile_halo_from_block_edge_only<<<grid, dim3(block.x, block.y, 1), (block.x + 2) * (block.y + 2) * sizeof(float),
                                   stream>>>(g, coeff, in, out);
  CUDA_CHECK_LAUNCH();
}

// Two steps fused with a halo one cell too thin. Each thread computes the first step at its
// cell and its z-neighbours from memory and shares its own in a tile; the second step needs
// the first at the x-y neighbours, which the tile's edge threads do not have. The block must
// therefore keep a halo of one cell and write only its middle; this one writes every cell, and
// at the tile's edge takes the missing neighbour's first step to be its own.
__device__ float first_step(const HeatGrid& g, float coeff, const float* in, int i, int j, int k) {
  const int c = (k * g.ny + j) * g.nx + i, row = g.nx, plane = g.nx * g.ny;
  if (k < 1 || k > g.nz - 2) return in[c];
  return in[c] + coeff * (in[c - 1] + in[c + 1] + in[c - row] + in[c + row] + in[c - plane] + in[c + plane] - 6 * in[c]);
}

__global__ void two_steps_halo_too_thin(HeatGrid g, float coeff, const float* in, float* out) {
  extern __shared__ float tile[];
  const int i = 1 + blockIdx.x * blockDim.x + threadIdx.x, j = 1 + blockIdx.y * blockDim.y + threadIdx.y,
            k = 1 + blockIdx.z;
  const bool inside = i <= g.nx - 2 && j <= g.ny - 2 && k <= g.nz - 2;
  const int t = threadIdx.y * blockDim.x + threadIdx.x, c = (k * g.ny + j) * g.nx + i;
  const float mid = inside ? first_step(g, coeff, in, i, j, k) : 0.0f;
  tile[t] = mid;
  __syncthreads();
  if (!inside) return;
  // A first-step x-y neighbour: from the tile, or the boundary's unchanged value, or (wrong) mid.
  auto at = [&](int di, int dj, int dt) {
    const int ni = i + di, nj = j + dj;
    if (ni < 1 || nj < 1 || ni > g.nx - 2 || nj > g.ny - 2) return in[c + dj * g.nx + di];
    const int tx = int(threadIdx.x) + di, ty = int(threadIdx.y) + dj;
    return tx < 0 || ty < 0 || tx >= int(blockDim.x) || ty >= int(blockDim.y) ? mid : tile[t + dt];
  };
  const float below = first_step(g, coeff, in, i, j, k - 1), above = first_step(g, coeff, in, i, j, k + 1);
  const int w = blockDim.x;
  out[c] = mid + coeff * (at(-1, 0, -1) + at(1, 0, 1) + at(0, -1, -w) + at(0, 1, w) + below + above - 6 * mid);
}

float* run_two_steps_per_pass(const HeatGrid& g, float coeff, float* a, float* b, int steps, dim3 block,
                              cudaStream_t stream) {
  if (g.interior_cells() == 0) return a;
  const dim3 grid = tiles_by_plane(g, block);
  for (; steps >= 2; steps -= 2) {
    two_steps_halo_too_thin<<<grid, dim3(block.x, block.y, 1), block.x * block.y * sizeof(float), stream>>>(g, coeff, a, b);
    CUDA_CHECK_LAUNCH();
    std::swap(a, b);
  }
  return heat_v1.run(g, coeff, a, b, steps, block, stream);  // the step left over, if any
}

// v6 without its last, shallower pass: runs the whole passes of 8 steps only.
float* run_v6_whole_passes_only(const HeatGrid& g, float coeff, float* a, float* b, int steps, dim3 block,
                                cudaStream_t stream) {
  return heat_v6.run(g, coeff, a, b, steps - steps % 8, block, stream);
}

// x-neighbours passed by warp shuffles (as v5 does), with the cells beyond loaded only by the
// warp's first and last lanes: right while each warp is one row of the block, wrong when a
// block narrower than a warp puts two rows in one warp and a row's first thread takes its
// left neighbour from the end of the row before.
__global__ void shuffle_edges_by_lane_only(HeatGrid g, float coeff, const float* in, float* out) {
  const int lane = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32;
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y,
            k = blockIdx.z * blockDim.z + threadIdx.z;
  if (j < 1 || k < 1 || j > g.ny - 2 || k > g.nz - 2) return;
  const int ic = min(i, g.nx - 1);  // past the row's end: repeat its last cell, store nothing
  const int c = (k * g.ny + j) * g.nx + ic, row = g.nx, plane = g.nx * g.ny;
  float left = __shfl_up_sync(0xffffffffu, in[c], 1), right = __shfl_down_sync(0xffffffffu, in[c], 1);
  if (lane == 0 && ic > 0) left = in[c - 1];            // wrong: also needed where threadIdx.x == 0
  if (lane == 31 && ic < g.nx - 1) right = in[c + 1];  // and where threadIdx.x == blockDim.x - 1
  if (i >= 1 && i <= g.nx - 2)
    out[c] = in[c] + coeff * (left + right + in[c - row] + in[c + row] + in[c - plane] + in[c + plane] - 6 * in[c]);
}

// A wrong stage, named in the checks' failure messages.
HeatStage wrong_stage(const char* name, HeatCode code) { return {{name, "", tut::Side::gpu, "tests/01-heat/test_gpu.cu"}, code}; }
const HeatStage skipping = wrong_stage("wrong-skip", {steps_of<launch<skips_row_end>>, dim3(64, 8, 1)});
const HeatStage neighbour = wrong_stage("wrong-neighbour", {steps_of<launch<wrong_neighbour>>, dim3(64, 8, 1)});
const HeatStage boundary = wrong_stage("wrong-boundary", {steps_of<launch<writes_boundary>>, dim3(64, 8, 1)});
const HeatStage tiled = wrong_stage("wrong-tile-halo", {steps_of<launch_tiled>, dim3(32, 8, 1)});
const HeatStage thin_halo = wrong_stage("wrong-thin-halo", {run_two_steps_per_pass, dim3(32, 8, 1)});
const HeatStage no_tail = wrong_stage("wrong-no-tail", {run_v6_whole_passes_only, dim3(64, 4, 1)});
const HeatStage lane_edges = wrong_stage("wrong-shuffle-edges", {steps_of<launch<shuffle_edges_by_lane_only>>, dim3(32, 4, 1)});

}  // namespace

TEST(SuiteRejectsWrongStage, KernelThatSkipsTheEndOfEachRow) {
  EXPECT_FALSE(matches_reference(skipping, {37, 29, 23}, 5, skipping.code.block));
  EXPECT_FALSE(writes_interior_only(skipping, {37, 29, 23}, skipping.code.block));
}

TEST(SuiteRejectsWrongStage, KernelThatReadsTheWrongNeighbour) {
  EXPECT_FALSE(matches_reference(neighbour, {37, 29, 23}, 5, neighbour.code.block));
}

TEST(SuiteRejectsWrongStage, KernelThatWritesTheBoundary) {
  EXPECT_FALSE(writes_interior_only(boundary, {37, 29, 23}, boundary.code.block));
  EXPECT_FALSE(matches_reference(boundary, {37, 29, 23}, 5, boundary.code.block));
}

// Right wherever the tile divides the grid: only the sizes that divide no block catch it.
TEST(SuiteRejectsWrongStage, TileWhoseHaloMissesTheLastCellInsideTheGrid) {
  EXPECT_TRUE(matches_reference(tiled, {34, 10, 5}, 2, tiled.code.block));  // 32 x 8 interior: divides
  EXPECT_FALSE(matches_reference(tiled, {37, 29, 23}, 2, tiled.code.block));
}

// Right after one pass of two steps everywhere but at the tile's edges: the checks see it.
TEST(SuiteRejectsWrongStage, FusedStepsWithAHaloOneCellTooThin) {
  EXPECT_FALSE(matches_reference(thin_halo, {37, 29, 23}, 2, thin_halo.code.block));
  EXPECT_FALSE(matches_reference(thin_halo, {130, 67, 45}, 4, thin_halo.code.block));
}

// Right whenever 8 divides the steps: only the other step counts catch it.
TEST(SuiteRejectsWrongStage, FusedStepsThatDropTheLastPartialPass) {
  EXPECT_TRUE(matches_reference(no_tail, {37, 29, 23}, 16, no_tail.code.block));
  EXPECT_FALSE(matches_reference(no_tail, {37, 29, 23}, 7, no_tail.code.block));
}

// Right in blocks a warp wide: only the odd block shapes catch it.
TEST(SuiteRejectsWrongStage, ShuffleThatTakesNeighboursFromAnotherRow) {
  EXPECT_TRUE(matches_reference(lane_edges, {37, 29, 23}, 3, lane_edges.code.block));
  EXPECT_FALSE(matches_reference(lane_edges, {37, 29, 23}, 3, dim3(7, 3, 2)));
}
