// heat v7: the small problem. v4's launches captured once as a CUDA graph and replayed.
//   run:  build/chapters/01-heat/heat3d --stage v4,v7,v7_v6
//   test: meson test -C build heat-v7 heat-v7-idea --print-errorlogs
// Change from v4 (the fastest stage on this problem; v6 comes after it in the lesson): the
// launches are not issued one by one. The first run on a pair of buffers records
// kStepsPerGraph steps of v4 into a graph (cudaStreamBeginCapture ... EndCapture) and
// instantiates it; every later run replays it, and the steps that do not fill a graph run as
// plain launches.
// Why it should help: on the seed's 128^3 field (8 MiB, well inside the 60 MiB L2) a step
// takes a few microseconds of GPU time, about what it costs the CPU to launch a kernel.
// A graph hands the GPU many kernels in one call, so the GPU no longer waits for the CPU
// between them. Replaying v5 or v6 instead is measured too (the variants).
// What still limits it: each kernel must still finish before the next starts, and on a field
// this small a kernel is mostly its ramp-up and tail: the graph removes only the launch. v4 is
// the faster one-step stage only while the field stays in L2: where its two buffers take more
// than half the L2, v7 replays v5's launches instead (the lesson's size sweep).
#include <utility>
#include <vector>

#include "check.h"
#include "heat.h"
#include "path_taken.h"

namespace {

constexpr int kStepsPerGraph = 48;  // divisible by every fusion depth (2, 4, 6, 8): whole passes only
constexpr dim3 kBlock{128, 4, 1};   // v4's

// A graph recorded for one stage, one grid and block shape, and one pair of buffers.
struct Recording {
  const HeatCode* stage;
  int nx, ny, nz;
  unsigned bx, by, bz;
  const float *a, *b;
  cudaGraphExec_t graph;
  float* result;  // where the recorded steps leave the field
};

// The recording of kStepsPerGraph steps of `stage` from a, made on first use and kept (one
// per stage, grid, block and buffers: a handful in a run). Recording launches nothing.
const Recording& recording(const HeatCode& stage, const HeatGrid& g, float coeff, float* a, float* b, dim3 block) {
  static std::vector<Recording> made;
  for (const Recording& r : made)
    if (r.stage == &stage && r.nx == g.nx && r.ny == g.ny && r.nz == g.nz && r.bx == block.x &&
        r.by == block.y && r.bz == block.z && r.a == a && r.b == b)
      return r;
  Recording r{&stage, g.nx, g.ny, g.nz, block.x, block.y, block.z, a, b, nullptr, nullptr};
  // EXERCISE: record kStepsPerGraph steps of the stage on a capturing stream into a graph,
  //   instantiate it in r.graph, and keep the buffer the steps end in as r.result
  cudaStream_t capturing;
  CUDA_CHECK(cudaStreamCreateWithFlags(&capturing, cudaStreamNonBlocking));
  cudaGraph_t recorded;
  CUDA_CHECK(cudaStreamBeginCapture(capturing, cudaStreamCaptureModeThreadLocal));
  r.result = stage.run(g, coeff, a, b, kStepsPerGraph, block, capturing);
  CUDA_CHECK(cudaStreamEndCapture(capturing, &recorded));
  CUDA_CHECK(cudaGraphInstantiate(&r.graph, recorded, 0));
  CUDA_CHECK(cudaGraphDestroy(recorded));
  CUDA_CHECK(cudaStreamDestroy(capturing));

  made.push_back(r);
  return made.back();
}

// `steps` steps of the stage kStage, whole graphs replayed on `stream`, the rest launched plainly.
template <const HeatCode& kStage>
float* run(const HeatGrid& g, float coeff, float* a, float* b, int steps, dim3 block, cudaStream_t stream) {
  for (; steps >= kStepsPerGraph; steps -= kStepsPerGraph) {
    const Recording& r = recording(kStage, g, coeff, a, b, block);
    CUDA_CHECK(cudaGraphLaunch(r.graph, stream));
    if (r.result != a) std::swap(a, b);
  }
  return kStage.run(g, coeff, a, b, steps, block, stream);
}

// v7 as the lesson runs it: v4 replayed while its two buffers fit in half the L2, v5 beyond (in
// its own block, unless a --block was asked for that v5 can run).
float* run_best_replay(const HeatGrid& g, float coeff, float* a, float* b, int steps, dim3 block, cudaStream_t stream) {
  int device = 0, l2_bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  const bool in_l2 = 2.0 * g.cells() * sizeof(float) <= l2_bytes / 2.0;
  tut::note_path("v7", in_l2 ? "v4 replayed" : "v5 replayed: the fields take more than half the L2");
  if (in_l2) return run<heat_v4>(g, coeff, a, b, steps, block, stream);
  const bool own_block = block.x == kBlock.x && block.y == kBlock.y && block.z == kBlock.z;
  const bool v5_runs_it = block.x * block.y * block.z <= heat_v5.limits.most_threads;
  return run<heat_v5>(g, coeff, a, b, steps, !own_block && v5_runs_it ? block : heat_v5.block, stream);
}

// What a graph gives each stage on the small problem (see the lesson's table).
// Each replays another stage, in that stage's block, within its limits.
const HeatVariant kSweep[] = {
    {"v7_v5", "v5 replayed as a CUDA graph", run<heat_v5>, heat_v5.limits, heat_v5.block},
    {"v7_v6", "v6 replayed as a CUDA graph", run<heat_v6>, heat_v6.limits, heat_v6.block}};

}  // namespace

const HeatCode heat_v7{run_best_replay, kBlock, {}, kSweep};
