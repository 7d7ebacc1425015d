// matmul gpu8: gpu7's kernel on every shape: the tile and a split of k chosen for the problem.
//   run:  build/chapters/02-matmul/matmult_f gpu8 64 4096 4096
//   test: meson test -C build matmul-gpu8 matmul-gpu8-idea --print-errorlogs
// Change from gpu7: the tile stays (chapters/02-matmul/tensor_core_tile.cuh); what changes is how
// the blocks share the work, as a library does. A GPU works in waves: 132 SMs each hold one block
// of gpu7's 128x128 tiles (two of 128x64 or 64x64), and a grid of blocks runs as
// ceil(blocks / resident) waves, the last one partly idle. 1024^3 gives gpu7 64 tiles: one wave
// with half the SMs idle. 64 x 4096 x 4096 gives 32 tiles, each half empty (64 of its 128 rows).
// So gpu8 cuts k into shares as well (split-K): share z of each tile's k-tiles is multiplied by a
// block of its own into a slice of partial products, and a second kernel adds the slices into C.
// Where the tiles make whole waves and a little more (2017 x 1031 x 997: 144 tiles for 132 SMs),
// only the rows of tiles past the whole waves are split: the first launch fills the waves with
// whole tiles, the second spreads the few tiles left over many blocks (a data-parallel part and
// a split-K tail). Or stream-K: one launch of as many blocks as the GPU holds, each an equal run
// of all the tiles' k-tiles, partial tiles handed over through memory (stream_k_tiles): no partly
// empty wave, no second launch. From the problem's shape and the SM count a model ranks the plans
// (tile shape, rows computed whole, number of shares, stream-K) by waves' worth of time, the
// partial products' traffic included; the first call of a shape times gpu7's plan and the model's
// best of each kind and keeps the fastest (gpu8_plan), as a library's autotuner does; gpu8_launch
// then launches the plan's kernels. On the square sizes gpu7 was tuned for, that plan is gpu7's.
// Why it should help: a wave whose SMs are all busy does the same work in less time; a split
// makes blocks where the tiles are too few, and a smaller tile wastes less of a thin matrix.
// What still limits it: a split costs the partial products' round trip through memory (stream-K
// at 2017 x 1031 x 997: nearly every block hands a tile over), and blocks of smaller tiles reuse
// less of each loaded element; odd k and n take the kernel's one-double copies; the first call
// of each shape pays for timing up to ten plans. On an H100: 91% to 108% of cuBLAS on seven
// of the chapter's eight shapes, and about cuBLAS's speed on 4096 x 4096 x 64, where cuBLAS's
// own timing varies more than the gap (README).
#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"
#include "matmul.h"
#include "stress.h"
#include "tensor_core_tile.cuh"

namespace {

// Split-K: one block per tile of C and share of k. Block z multiplies its share of the k-tiles
// and writes its partial product to C + z m n (one share: C = A B, gpu7's kernel).
template <class T, int WIDTH>
__global__ void __launch_bounds__(T::kThreads) split_k_tiles(int m, int n, int k, const double* __restrict__ A,
                                                             const double* __restrict__ B, double* __restrict__ C) {
  const int row0 = blockIdx.y * T::BM, col0 = blockIdx.x * T::BN;
  const int all_tiles = (k + T::BK - 1) / T::BK, share = (all_tiles + gridDim.z - 1) / gridDim.z;
  const int first_tile = blockIdx.z * share, tiles = max(0, min(share, all_tiles - first_tile));
  Accumulators<T> acc = {};
  multiply_k_tiles<T, WIDTH>(m, n, k, A, B, row0, col0, first_tile, tiles, acc);
  store_tile<T, WIDTH>(C + size_t(blockIdx.z) * m * n, m, n, row0, col0, acc);
}

// C = the sum of `shares` slices of m n partial products (count = m n), one element per thread.
__global__ void sum_shares(long long count, int shares, const double* __restrict__ slices, double* __restrict__ C) {
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < count; e += (long long)gridDim.x * blockDim.x) {
    // EXERCISE: C[e] = the sum over the shares z of slices[z count + e]
    // (The stress suite's build that leaves the last share out, removed("last_share"), must fail.)
    const int summed = tut::stress::removed("last_share") ? shares - 1 : shares;
    double sum = 0;
    for (int z = 0; z < summed; ++z) sum += slices[z * count + e];
    C[e] = sum;
  }
}

// Stream-K: the grid's blocks (no more than the GPU holds at once) take equal runs of all the
// tiles' k-tiles, counted tile after tile, so that no SM waits for a last, partly empty wave. A
// run starts inside a tile's k at most once, at its own start: that partial product goes to the
// block's slot in `partials` and its flag in `ready` is raised. The block whose run holds a tile's
// first k-tile has reached it at its run's end, by when the blocks that finish the tile's k (the
// next ones) have handed theirs over: it adds them and writes C. All blocks are resident at once,
// so the wait cannot block the blocks it waits for.
template <class T>
__device__ __forceinline__ void hand_over(const Accumulators<T>& acc, double* partials, unsigned* ready) {
  double* slot = partials + size_t(blockIdx.x) * T::BM * T::BN;
  tut::stress::pause_if(threadIdx.x >= 32, 100);  // stress builds: the first warp alone writes on time
  int r = 0;
#pragma unroll
  for (int mi = 0; mi < T::MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < T::NI; ++ni)
#pragma unroll
      for (int v = 0; v < 4; ++v) slot[(r++) * T::kThreads + threadIdx.x] = acc[mi][ni][v];
  if constexpr (!tut::stress::removed("fence_before_flag")) {  // the stress suite's build without it fails
    __threadfence();  // this thread's slot in memory before the flag, for every thread
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicExch(ready + blockIdx.x, 1u);
}

template <class T>
__device__ __forceinline__ void add_handed_over(Accumulators<T>& acc, const double* partials, unsigned* ready, int from) {
  if (threadIdx.x == 0)
    while (atomicCAS(ready + from, 1u, 0u) == 0u) __nanosleep(64);  // taken and lowered for the next call
  __syncthreads();
  __threadfence();
  const double* slot = partials + size_t(from) * T::BM * T::BN;
  int r = 0;
#pragma unroll
  for (int mi = 0; mi < T::MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < T::NI; ++ni)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[mi][ni][v] += __ldcg(slot + (r++) * T::kThreads + threadIdx.x);
}

template <class T, int WIDTH>
__global__ void __launch_bounds__(T::kThreads) stream_k_tiles(int m, int n, int k, const double* __restrict__ A,
                                                              const double* __restrict__ B, double* __restrict__ C,
                                                              double* __restrict__ partials, unsigned* __restrict__ ready) {
  const int columns = (n + T::BN - 1) / T::BN, k_tiles = (k + T::BK - 1) / T::BK;
  const long long all = (long long)((m + T::BM - 1) / T::BM) * columns * k_tiles;
  const auto run_start = [&](long long block) { return all * block / gridDim.x; };
  const long long end = run_start(blockIdx.x + 1);
  for (long long at = run_start(blockIdx.x); at < end;) {
    const long long tile = at / k_tiles, tile_end = (tile + 1) * k_tiles;
    const int first = int(at - tile * k_tiles), count = int(min(end, tile_end) - at);
    const int row0 = int(tile / columns) * T::BM, col0 = int(tile % columns) * T::BN;
    Accumulators<T> acc = {};
    multiply_k_tiles<T, WIDTH>(m, n, k, A, B, row0, col0, first, count, acc);
    wait_for_copy_groups<0>();  // the copies started past the run's end land before the stages are reused
    __syncthreads();
    if (first > 0) {
      hand_over<T>(acc, partials, ready);
    } else {
      for (int other = blockIdx.x + 1; tile_end > end && run_start(other) < tile_end; ++other)
        add_handed_over<T>(acc, partials, ready, other);
      store_tile<T, WIDTH>(C, m, n, row0, col0, acc);
    }
    at += count;
  }
}

// The three tile shapes, as the planner and the launches see them: the tile, the block, and the
// kernels compiled for it ([1]: 16-byte copies, [0]: 8-byte ones).
using SplitKernel = void (*)(int, int, int, const double*, const double*, double*);
using StreamKKernel = void (*)(int, int, int, const double*, const double*, double*, double*, unsigned*);
struct TileShape {
  int bm, bn, bk, threads;
  size_t shared_bytes;
  SplitKernel split[2];
  StreamKKernel stream_k[2];
};

template <class T>
TileShape shape_of() {
  return {T::BM, T::BN, T::BK, T::kThreads, T::kSharedBytes, {split_k_tiles<T, 1>, split_k_tiles<T, 2>},
          {stream_k_tiles<T, 1>, stream_k_tiles<T, 2>}};
}

// gpu7's 128x128 tile, 128x64 (two blocks per SM), 64x64.
constexpr int kTileShapes = 3;
const TileShape kShapes[kTileShapes] = {shape_of<Tiling<128, 128, 32, 4, 2, 3, 16>>(),
                                        shape_of<Tiling<128, 64, 32, 4, 1, 2, 16>>(),
                                        shape_of<Tiling<64, 64, 32, 2, 2, 3, 16>>()};

// The model's rates, rounded from gpu7 and its tile shapes on an H100 (chapter README): what one
// SM multiplies per second in a 128x128 tile, as a share of it in the smaller tiles (they reuse
// less of what they load: at 4096^3 and 8192^3, 128x64 ran at 0.95 of 128x128, 64x64 at 0.8 to
// 0.86), what memory moves per second, and what a launch costs.
constexpr double kFlopsPerSm = 0.40e12;
constexpr double kTileSpeed[kTileShapes] = {1.0, 0.95, 0.85};
constexpr double kBytesPerSecond = 2.5e12;
constexpr double kLaunchSeconds = 3e-6;
constexpr int kMostShares = 16;

// What the GPU holds at once: SMs, and blocks of each tile shape per SM. Asked once, after the
// kernels' checks and their opt-in to more than 48 KiB of shared memory: the occupancy query is
// host work that would otherwise sit inside every call's time.
struct Residency {
  int sms = 0;
  int per_sm[kTileShapes] = {}, stream_k_per_sm[kTileShapes] = {};
  long long slots(int tiles) const { return (long long)sms * per_sm[tiles]; }
  long long stream_k_slots(int tiles) const { return (long long)sms * stream_k_per_sm[tiles]; }
};

const Residency& residency() {
  static const Residency r = [] {
    Residency r;
    r.sms = tut::multiprocessor_count();
    require_fp64_tensor_cores("gpu8", kShapes[0].split[0]);
    for (int t = 0; t < kTileShapes; ++t) {
      const TileShape& shape = kShapes[t];
      for (int width = 0; width < 2; ++width)
        for (const void* kernel : {(const void*)shape.split[width], (const void*)shape.stream_k[width]})
          CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shape.shared_bytes)));
      CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.per_sm[t], shape.split[1], shape.threads, shape.shared_bytes));
      CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.stream_k_per_sm[t], shape.stream_k[0], shape.threads,
                                                               shape.shared_bytes));
      r.per_sm[t] = std::max(1, r.per_sm[t]);
      r.stream_k_per_sm[t] = std::max(1, r.stream_k_per_sm[t]);
    }
    return r;
  }();
  return r;
}

// The model's time for `rows` rows of tiles with k in `shares` shares: ceil(blocks / slots) waves
// of one block's share of the work, plus, with more than one share, the shares' traffic (each
// slice written and read, C written: (2 shares + 1) doubles per element) and the sum's launch.
double modelled_seconds(int tiles, long long rows, int n, int k, int shares) {
  const TileShape& shape = kShapes[tiles];
  const Residency& r = residency();
  const long long blocks = rows * blocks_for(n, shape.bn) * shares;
  const long long waves = (blocks + r.slots(tiles) - 1) / r.slots(tiles);
  const double block_flops = 2.0 * shape.bm * shape.bn * blocks_for(blocks_for(k, shape.bk), shares) * shape.bk;
  double seconds = waves * block_flops / (kFlopsPerSm * kTileSpeed[tiles] / r.per_sm[tiles]);
  if (shares > 1) seconds += (2.0 * shares + 1) * rows * shape.bm * n * sizeof(double) / kBytesPerSecond + kLaunchSeconds;
  return seconds;
}

// Stream-K's blocks for a shape: one per slot, no more than there are k-tiles to share.
long long stream_k_blocks(int tiles, int m, int n, int k) {
  const TileShape& shape = kShapes[tiles];
  const long long all = blocks_for(m, shape.bm) * blocks_for(n, shape.bn) * blocks_for(k, shape.bk);
  return std::min(all, residency().stream_k_slots(tiles));
}

// The model's time for stream-K: each block's run of k-tiles, plus the partial tiles' round trip
// (at most one per block, written and read) and the flags' reset before the launch.
double modelled_stream_k_seconds(int tiles, int m, int n, int k) {
  const TileShape& shape = kShapes[tiles];
  const Residency& r = residency();
  const long long all = blocks_for(m, shape.bm) * blocks_for(n, shape.bn) * blocks_for(k, shape.bk);
  const long long blocks = stream_k_blocks(tiles, m, n, k), run = (all + blocks - 1) / blocks;
  const double k_tile_flops = 2.0 * shape.bm * shape.bn * shape.bk;
  return run * k_tile_flops / (kFlopsPerSm * kTileSpeed[tiles] / r.stream_k_per_sm[tiles]) +
         2.0 * blocks * shape.bm * shape.bn * sizeof(double) / kBytesPerSecond + kLaunchSeconds;
}

// Rows of tiles that fill whole waves (none if the tiles make less than one wave).
long long rows_in_whole_waves(int tiles, int m, int n) {
  const TileShape& shape = kShapes[tiles];
  const long long columns = blocks_for(n, shape.bn), slots = residency().slots(tiles);
  return blocks_for(m, shape.bm) * columns / slots * slots / columns;
}

// Every plan the model considers, the fastest by the model first.
std::vector<MatmulPlan> ranked_plans(int m, int n, int k) {
  std::vector<MatmulPlan> plans;
  // EXERCISE: for each tile shape, two ways to place the whole tiles: none (every row of tiles
  //   split alike), or as many rows as fill whole waves (the rest, a tail, split); for each, each
  //   number of shares (1 .. kMostShares, no more than k has k-tiles, no share left empty); the
  //   time of the whole rows plus that of the split ones, into `plans`; and stream-K
  for (int t = 0; t < kTileShapes; ++t) {
    const TileShape& shape = kShapes[t];
    const long long rows = blocks_for(m, shape.bm);
    const int k_tiles = int(blocks_for(k, shape.bk));
    const long long filled = rows_in_whole_waves(t, m, n);
    std::vector<long long> wholes{0};
    if (filled > 0 && filled < rows) wholes.push_back(filled);
    for (const long long whole : wholes) {
      for (int shares = 1; shares <= std::min(kMostShares, k_tiles); ++shares) {
        const int share_tiles = int(blocks_for(k_tiles, shares));
        if (shares > 1 && int(blocks_for(k_tiles, share_tiles)) < shares) continue;  // an empty share: fewer do the same
        if (whole > 0 && shares == 1) continue;  // two launches of whole tiles: the plain plan does that in one
        const double seconds = (whole ? modelled_seconds(t, whole, n, k, 1) : 0) + modelled_seconds(t, rows - whole, n, k, shares);
        plans.push_back({t, int(whole), shares, false, seconds});
      }
    }
    if (k > 0) plans.push_back({t, 0, 1, true, modelled_stream_k_seconds(t, m, n, k)});
  }

  if (plans.empty()) throw std::logic_error("gpu8: the model offered no plan for this shape");
  std::stable_sort(plans.begin(), plans.end(), [](const MatmulPlan& a, const MatmulPlan& b) { return a.seconds < b.seconds; });
  return plans;
}

// The partial products (and stream-K's flags) live in memory from a pool that keeps what it had
// (no new allocation from the driver at every call).
template <class T>
T* pooled(size_t count, cudaStream_t stream) {
  static const bool kept = [] {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaMemPool_t pool;
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    unsigned long long keep_all = ~0ull;
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
    return true;
  }();
  (void)kept;
  T* memory = nullptr;
  CUDA_CHECK(cudaMallocAsync(&memory, count * sizeof(T), stream));
  return memory;
}

// The plans timed at the first call of each shape (gpu8_plan). Not thread-safe: the course calls
// from one thread.
std::map<std::array<int, 3>, MatmulPlan>& tuned_plans() {
  static std::map<std::array<int, 3>, MatmulPlan> plans;
  return plans;
}

}  // namespace

// The plan's kernels: stream-K's one launch (its flags cleared first); or the rows of tiles
// computed whole, then the rest with k in shares, their slices summed into C.
void gpu8_launch(const MatmulPlan& plan, int m, int n, int k, const double* A, const double* B, double* C,
                 cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  residency();  // the kernels checked and allowed their shared memory
  const TileShape& shape = kShapes[plan.tiles];
  if (plan.stream_k && k > 0) {
    const int blocks = int(stream_k_blocks(plan.tiles, m, n, k));
    double* partials = pooled<double>(size_t(blocks) * shape.bm * shape.bn, stream);
    unsigned* ready = pooled<unsigned>(blocks, stream);
    CUDA_CHECK(cudaMemsetAsync(ready, 0, blocks * sizeof(unsigned), stream));
    shape.stream_k[copies_in_pairs(n, k, A, B, C)]<<<blocks, shape.threads, shape.shared_bytes, stream>>>(
        m, n, k, A, B, C, partials, ready);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaFreeAsync(partials, stream));
    CUDA_CHECK(cudaFreeAsync(ready, stream));
    return;
  }
  const int whole = plan.shares == 1 ? m : std::min(m, plan.whole_rows * shape.bm);
  if (whole > 0) {
    shape.split[copies_in_pairs(n, k, A, B, C)]<<<dim3(blocks_for(n, shape.bn), blocks_for(whole, shape.bm)),
                                                   shape.threads, shape.shared_bytes, stream>>>(whole, n, k, A, B, C);
    CUDA_CHECK_LAUNCH();
  }
  const int rest = m - whole;
  if (rest == 0) return;
  const double* rest_A = A + size_t(whole) * k;
  double* rest_C = C + size_t(whole) * n;
  const long long count = (long long)rest * n;
  double* slices = pooled<double>(size_t(count) * plan.shares, stream);
  shape.split[copies_in_pairs(n, k, rest_A, B, slices)]<<<dim3(blocks_for(n, shape.bn), blocks_for(rest, shape.bm), plan.shares),
                                                          shape.threads, shape.shared_bytes, stream>>>(rest, n, k, rest_A, B, slices);
  CUDA_CHECK_LAUNCH();
  const int sum_blocks = int(std::min<long long>((count + 255) / 256, 4096));  // the rest by striding
  sum_shares<<<sum_blocks, 256, 0, stream>>>(count, plan.shares, slices, rest_C);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaFreeAsync(slices, stream));
}

// The plan for a shape. The model ranks the plans but does not know everything that sets their
// speed (odd k takes the kernel's one-double copies; two blocks on an SM share its units; short
// k-loops pay their pipeline's start more often); so the first call of each shape times gpu7's
// own plan and the model's best plan of each kind (each tile shape: with and without whole rows,
// and stream-K) on the caller's buffers, the way a library's autotuner does (a warm-up, then the
// median of five), and keeps the fastest for the calls after it; gpu7's plan unless another
// beats it by more than a timing's noise. (C is written by each.)
MatmulPlan gpu8_plan(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  if (m == 0 || n == 0) return {};
  std::map<std::array<int, 3>, MatmulPlan>& tuned = tuned_plans();
  const std::array<int, 3> key{m, n, k};
  if (const auto found = tuned.find(key); found != tuned.end()) return found->second;
  const std::vector<MatmulPlan> ranked = ranked_plans(m, n, k);
  cudaStreamCaptureStatus capture;
  CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone) return ranked.front();  // no timing inside a graph being captured
  const auto same_kind = [](const MatmulPlan& p, const MatmulPlan& q) {
    return p.tiles == q.tiles && !p.whole_rows == !q.whole_rows && p.stream_k == q.stream_k;
  };
  std::vector<MatmulPlan> contenders{MatmulPlan{}};  // gpu7's plan (128x128 tiles, all of k in one launch) first
  for (const MatmulPlan& p : ranked)
    if (std::none_of(contenders.begin() + 1, contenders.end(), [&](const MatmulPlan& q) { return same_kind(p, q); }))
      contenders.push_back(p);
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> medians;
  for (const MatmulPlan& p : contenders) {
    gpu8_launch(p, m, n, k, A, B, C, stream);
    std::vector<float> times(5);
    for (float& ms : times) {
      CUDA_CHECK(cudaEventRecord(start, stream));
      gpu8_launch(p, m, n, k, A, B, C, stream);
      CUDA_CHECK(cudaEventRecord(stop, stream));
      CUDA_CHECK(cudaEventSynchronize(stop));
      CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    }
    std::nth_element(times.begin(), times.begin() + 2, times.end());
    medians.push_back(times[2]);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  const size_t fastest = size_t(std::min_element(medians.begin(), medians.end()) - medians.begin());
  const bool beats_gpu7 = medians[fastest] <= 0.99f * medians[0];  // by more than a timing's noise
  return tuned[key] = beats_gpu7 ? contenders[fastest] : contenders[0];
}

void gpu8_plan_and_launch(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  gpu8_launch(gpu8_plan(m, n, k, A, B, C, stream), m, n, k, A, B, C, stream);
}

namespace {

// One plan forced, whatever the shape: the sweep's points (and the tests' cases). TAIL: the rows
// of tiles in whole waves computed whole and the rest split (where the tiles make less than a
// wave, as in the tests' shapes: half the rows whole).
template <int TILES, int SHARES, bool TAIL = false, bool STREAM_K = false>
void launch_forced(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  const int shares = std::min(SHARES, std::max(1, int(blocks_for(k, kShapes[TILES].bk))));
  const long long rows = blocks_for(m, kShapes[TILES].bm), filled = rows_in_whole_waves(TILES, m, n);
  const int whole = !TAIL ? 0 : int(filled > 0 && filled < rows ? filled : rows / 2);
  gpu8_launch({TILES, whole, STREAM_K ? 1 : shares, STREAM_K}, m, n, k, A, B, C, stream);
}

// The plan in words: "64x64 tiles, k in 4 shares: 256 blocks, 1 wave of 264", or, with whole
// rows, "128x128 tiles: 14 rows whole (126 blocks, 1 wave of 132), 2 rows with k in 7 shares
// (126 blocks, 1 wave)".
std::string plan_text(int m, int n, int k) {
  const auto tuned = tuned_plans().find({m, n, k});  // the plan timed at the first call, else the model's
  const MatmulPlan plan = tuned != tuned_plans().end() ? tuned->second : ranked_plans(m, n, k).front();
  const TileShape& shape = kShapes[plan.tiles];
  const long long rows = blocks_for(m, shape.bm), columns = blocks_for(n, shape.bn), slots = residency().slots(plan.tiles);
  const auto blocks_and_waves = [&](long long blocks) {
    const long long waves = (blocks + slots - 1) / slots;
    return std::to_string(blocks) + " blocks, " + std::to_string(waves) + (waves > 1 ? " waves" : " wave");
  };
  const std::string tiles = std::to_string(shape.bm) + "x" + std::to_string(shape.bn) + " tiles";
  if (plan.stream_k) {
    const long long all = rows * columns * blocks_for(k, shape.bk), blocks = stream_k_blocks(plan.tiles, m, n, k);
    return tiles + ", stream-K: " + std::to_string(all) + " k-tiles in " + std::to_string(blocks) + " blocks (" +
           std::to_string((all + blocks - 1) / blocks) + " each at most)";
  }
  const std::string split = "k in " + std::to_string(plan.shares) + (plan.shares > 1 ? " shares" : " share");
  const long long split_blocks = (rows - plan.whole_rows) * columns * plan.shares;
  if (plan.whole_rows == 0) return tiles + ", " + split + ": " + blocks_and_waves(split_blocks) + " of " + std::to_string(slots);
  return tiles + ": " + std::to_string(plan.whole_rows) + " rows whole (" + blocks_and_waves(plan.whole_rows * columns) +
         " of " + std::to_string(slots) + "), " + std::to_string(rows - plan.whole_rows) + " rows with " + split + " (" +
         blocks_and_waves(split_blocks) + ")";
}

}  // namespace

extern "C" void matmult_gpu8(int m, int n, int k, double* A, double* B, double* C) {
  DeviceProduct on_gpu(m, n, k, A, B);
  const MatmulPlan plan = gpu8_plan(m, n, k, on_gpu.A.get(), on_gpu.B.get(), on_gpu.C.get(), nullptr);
  gpu8_launch(plan, m, n, k, on_gpu.A.get(), on_gpu.B.get(), on_gpu.C.get(), nullptr);
  on_gpu.copy_c_to(C);
}

// Every kind of plan (each tile shape: k split, whole rows and a split tail, stream-K), forced.
constexpr MatmulVariant kSweep[] = {
    {"gpu8_128x128_split4", launch_forced<0, 4>},        // gpu7's tile, k in 4 shares
    {"gpu8_128x128_tail4", launch_forced<0, 4, true>},   // the rows of tiles in whole waves whole, the rest's k in 4 shares
    {"gpu8_64x64_tail4", launch_forced<2, 4, true>},     // the same in 64x64 tiles
    {"gpu8_128x64", launch_forced<1, 1>},                // 128x64 tiles, two blocks per SM
    {"gpu8_128x64_split4", launch_forced<1, 4>},         // 128x64 tiles, k in 4 shares
    {"gpu8_128x64_tail4", launch_forced<1, 4, true>},    // 128x64 tiles, whole rows and a split tail
    {"gpu8_64x64", launch_forced<2, 1>},                 // 64x64 tiles
    {"gpu8_64x64_split4", launch_forced<2, 4>},          // 64x64 tiles, k in 4 shares
    {"gpu8_128x128_streamk", launch_forced<0, 1, false, true>},  // stream-K: equal runs of all the k-tiles
    {"gpu8_128x64_streamk", launch_forced<1, 1, false, true>},   // the same in 128x64 tiles (2017x1031x997's plan)
    {"gpu8_64x64_streamk", launch_forced<2, 1, false, true>},    // and in 64x64 tiles
};
const MatmulCode matmul_gpu8{matmult_gpu8, gpu8_plan_and_launch, kSweep, plan_text};
