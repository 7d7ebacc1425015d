// The GPU stages of chapter 04-particle-mesh, on odd block sizes as well as their own, and a
// deliberately wrong stage per kernel.
#include "check.h"
#include "pm_test_support.h"

class Part2DataGpuTest : public testing::TestWithParam<const Part2DataStage*> {};
INSTANTIATE_TEST_SUITE_P(part2data, Part2DataGpuTest,
                         testing::ValuesIn(tut::stages_on(part2data_stages(), tut::Side::gpu)),
                         stage_param_name<Part2DataStage>);

TEST_P(Part2DataGpuTest, BinsRandomParticlesExactly) {
  for (const Mesh& m : part2data_meshes())
    for (int np : particle_counts())
      for (unsigned block : {0u, 32u, 96u, 1000u}) {  // 0: the stage's own
        const testing::AssertionResult ok = bins_exactly(*GetParam(), m, np, block);
        EXPECT_TRUE(ok);
        if (!ok) return;
      }
}

TEST_P(Part2DataGpuTest, BinsTheLargestMesh) {
  EXPECT_TRUE(bins_exactly(*GetParam(), {kMaxMeshSide, 1.0f / kMaxMeshSide}, 100003));
}

TEST_P(Part2DataGpuTest, RecomputesWhenOnlyTheInputsChange) {
  expect_part2data_recomputes_when_only_the_inputs_change(*GetParam());
}

class ForceGpuTest : public testing::TestWithParam<const ForceStage*> {};
INSTANTIATE_TEST_SUITE_P(force, ForceGpuTest, testing::ValuesIn(tut::stages_on(force_stages(), tut::Side::gpu)),
                         stage_param_name<ForceStage>);

TEST_P(ForceGpuTest, DifferentiatesAlongItsAxis) {
  const ForceStage& s = *GetParam();
  const std::vector<int> strips = s.code.strip ? std::vector<int>{0, 1, 2, 8, 128} : std::vector<int>{0};
  for (int N : force_sizes())
    for (int axis : {kAxisX, kAxisY, kAxisZ})
      for (int strip : strips) {
        if (!s.handles(axis)) continue;
        const testing::AssertionResult ok = differentiates(s, N, axis, strip);
        EXPECT_TRUE(ok);
        if (!ok) return;
      }
}

TEST_P(ForceGpuTest, RecomputesWhenOnlyTheInputsChange) {
  expect_force_recomputes_when_only_the_inputs_change(*GetParam());
}

namespace {

// Wrong on purpose: the slides' shared-memory kernel with its indexing repaired but still no
// tail handling: the last, partial block does nothing.
__global__ void without_tail(Mesh m, int np, const float* pos, int* data) {
  extern __shared__ float staged[];
  const int first = blockIdx.x * blockDim.x, t = threadIdx.x;
  if (first + int(blockDim.x) > np) return;
  for (int f = t; f < 3 * int(blockDim.x); f += blockDim.x) staged[f] = pos[3 * first + f];
  __syncthreads();
  data[first + t] = cell_index(m, staged[3 * t], staged[3 * t + 1], staged[3 * t + 2]);
}
void without_tail_run(const Mesh& m, int np, const float* pos, int* data, unsigned block, cudaStream_t stream) {
  without_tail<<<blocks_for(np, block), block, 3 * block * sizeof(float), stream>>>(m, np, pos, data);
  CUDA_CHECK_LAUNCH();
}
const Part2DataStage wrong_part2data = {{"wrong-no-tail", "", tut::Side::gpu, "tests/04-particle-mesh/test_gpu.cu"},
                                        Part2DataCode{without_tail_run, 256}};

// Wrong on purpose: a strip's left neighbour is read from the strip's own first plane, not the
// plane before it: right inside every strip, wrong on each strip's first plane.
__global__ void strips_without_left_edge(int N, float two_dx, const float* pot, float* fx) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y, first = blockIdx.z * 8;
  if (k >= N) return;
  const int mask = N - 1, plane = N * N, column = j * N + k;
  float a = pot[first * plane + column], b = a;
  for (int i = first; i < first + 8; ++i) {
    const float c = pot[((i + 1) & mask) * plane + column];
    fx[i * plane + column] = (c - a) / two_dx;
    a = b;
    b = c;
  }
}
void strips_run(const Mesh& m, int, const float* pot, float* f, int, cudaStream_t stream) {
  strips_without_left_edge<<<dim3(blocks_for(m.N, 128), m.N, m.N / 8), 128, 0, stream>>>(m.N, 2.0f * m.dx, pot, f);
  CUDA_CHECK_LAUNCH();
}
const ForceStage wrong_force = {{"wrong-strip-edge", "", tut::Side::gpu, "tests/04-particle-mesh/test_gpu.cu"},
                                ForceCode{strips_run, 1u << kAxisX}};

}  // namespace

TEST(SuiteRejectsWrongStage, Part2DataWithoutTail) {
  EXPECT_FALSE(bins_exactly(wrong_part2data, {16, 1.0f / 16}, 1000003));
}

TEST(SuiteRejectsWrongStage, ForcexStripsWithoutTheirLeftEdge) {
  EXPECT_FALSE(differentiates(wrong_force, 64, kAxisX));
}
