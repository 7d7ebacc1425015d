// The GPU stages of chapter 01-heat against the tests' own reference (run by the main in
// gpu_test_main.cpp, which skips without a GPU), and deliberately wrong kernels that the
// checks must reject.
#include "check.h"
#include "heat_test_support.h"

INSTANTIATE_TEST_SUITE_P(Gpu, HeatStageTest, testing::Values(&heat_v1, &heat_v2, &heat_v3, &heat_v4), stage_param_name<HeatStage>);

class HeatGpuStageTest : public HeatStageTest {};
INSTANTIATE_TEST_SUITE_P(Gpu, HeatGpuStageTest, testing::Values(&heat_v1, &heat_v2, &heat_v3, &heat_v4), stage_param_name<HeatStage>);

// The driver's --block lets any shape run any stage: shapes that divide nothing must work.
TEST_P(HeatGpuStageTest, MatchesReferenceWithOddBlockShapes) {
  for (const dim3 block : {dim3(7, 3, 2), dim3(1, 1, 1), dim3(33, 5, 1)}) {
    const testing::AssertionResult ok = matches_reference(*GetParam(), {37, 29, 23}, 4, block);
    EXPECT_TRUE(ok) << "with block " << block.x << "x" << block.y << "x" << block.z;
    if (!ok) break;
  }
}

// Each stage's block shape is its lesson (v1 {32,1,1}, v2 and v3 {64,8,1}, v4 {128,4,1}).
TEST_P(HeatGpuStageTest, UsesTheLessonsBlockShape) {
  const HeatStage& s = *GetParam();
  const std::string name = s.name;
  const dim3 want = name == "v1" ? dim3(32, 1, 1) : name == "v4" ? dim3(128, 4, 1) : dim3(64, 8, 1);
  EXPECT_TRUE(s.block.x == want.x && s.block.y == want.y && s.block.z == want.z)
      << "stage " << name << " must launch blocks of {" << want.x << "," << want.y << "," << want.z << "}, not {"
      << s.block.x << "," << s.block.y << "," << s.block.z << "}" << edit_hint(s);
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

const char* const here = "tests/01-heat/test_heat_gpu.cu";
const HeatStage skipping = {"wrong-skip", "", true, {64, 8, 1}, launch<skips_row_end>, here};
const HeatStage neighbour = {"wrong-neighbour", "", true, {64, 8, 1}, launch<wrong_neighbour>, here};
const HeatStage boundary = {"wrong-boundary", "", true, {64, 8, 1}, launch<writes_boundary>, here};

}  // namespace

TEST(SuiteRejectsWrongStage, KernelThatSkipsTheEndOfEachRow) {
  EXPECT_FALSE(matches_reference(skipping, {37, 29, 23}, 5, skipping.block));
  EXPECT_FALSE(writes_interior_only(skipping, {37, 29, 23}, skipping.block));
}

TEST(SuiteRejectsWrongStage, KernelThatReadsTheWrongNeighbour) {
  EXPECT_FALSE(matches_reference(neighbour, {37, 29, 23}, 5, neighbour.block));
}

TEST(SuiteRejectsWrongStage, KernelThatWritesTheBoundary) {
  EXPECT_FALSE(writes_interior_only(boundary, {37, 29, 23}, boundary.block));
  EXPECT_FALSE(matches_reference(boundary, {37, 29, 23}, 5, boundary.block));
}
