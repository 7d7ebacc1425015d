// The GPU stages of chapter 01-heat against the tests' own reference (run by the main in
// gpu_test_main.cpp, which skips without a GPU), and deliberately wrong kernels that the
// checks must reject.
#include "check.h"
#include "heat_test_support.h"

const std::vector<const HeatStage*> gpu_stages = tut::stages_on(heat_stages(), tut::Side::gpu);
INSTANTIATE_TEST_SUITE_P(heat, HeatStageTest, testing::ValuesIn(gpu_stages), stage_param_name<HeatStage>);

class HeatGpuStageTest : public HeatStageTest {};
INSTANTIATE_TEST_SUITE_P(heat, HeatGpuStageTest, testing::ValuesIn(gpu_stages), stage_param_name<HeatStage>);

// The driver's --block lets any shape run any stage: shapes that divide nothing must work.
TEST_P(HeatGpuStageTest, MatchesReferenceWithOddBlockShapes) {
  for (const dim3 block : {dim3(7, 3, 2), dim3(1, 1, 1), dim3(33, 5, 1)}) {
    const testing::AssertionResult ok = matches_reference(*GetParam(), {37, 29, 23}, 4, block);
    EXPECT_TRUE(ok) << "with block " << block.x << "x" << block.y << "x" << block.z;
    if (!ok) break;
  }
}

// Each stage's block shape is its lesson: the one it launches by default is the one heat.stages gives it.
TEST_P(HeatGpuStageTest, UsesTheLessonsBlockShape) {
  const HeatStage& s = *GetParam();
  const dim3 b = s.code.block;
  const std::string shape = std::to_string(b.x) + "x" + std::to_string(b.y) + "x" + std::to_string(b.z);
  EXPECT_EQ(shape, s.lesson_block) << "stage " << s.name << " must launch blocks of " << s.lesson_block
                                   << " (x, y, z), not " << shape << edit_hint(s);
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

template <void (*Kernel)(HeatGrid, float, const float*, float*)>
const HeatStage wrong_stage(const char* name) {
  return {{name, "", tut::Side::gpu, "tests/01-heat/test_gpu.cu"}, "64x8x1", HeatCode{launch<Kernel>, dim3(64, 8, 1)}};
}
const HeatStage skipping = wrong_stage<skips_row_end>("wrong-skip");
const HeatStage neighbour = wrong_stage<wrong_neighbour>("wrong-neighbour");
const HeatStage boundary = wrong_stage<writes_boundary>("wrong-boundary");

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
