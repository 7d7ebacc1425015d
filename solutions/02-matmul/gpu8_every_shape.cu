// matmul gpu8: gpu7's kernel on every shape: the tile and a split of k chosen for the problem.
//   run:  build/chapters/02-matmul/matmult_f gpu8 64 4096 4096
//   test: meson test -C build matmul-gpu8 matmul-gpu8-idea --print-errorlogs
// Change from gpu7: the kernel stays; what changes is how it is launched, as a library does. A
// GPU works in waves: 132 SMs each hold one block of gpu7's 128x128 tiles (two of 128x64 or
// 64x64), and a grid of blocks runs as ceil(blocks / resident) waves, the last one partly idle.
// 1024^3 gives gpu7 64 tiles: one wave with half the SMs idle. 64 x 4096 x 4096 gives 32 tiles,
// each half empty (64 of its 128 rows). So gpu8 cuts k into shares as well (split-K): share z
// of each tile's k-tiles is multiplied by a block of its own into a slice of partial products,
// and a second kernel adds the slices into C. From the problem's shape and the SM count it picks
// the tile shape and the number of shares with the fewest waves' worth of time, the sum's
// traffic included (plan_for below). On the square sizes gpu7 was tuned for, that plan is gpu7.
// Why it should help: a wave whose SMs are all busy does the same work in less time; a split
// makes blocks where the tiles are too few, and a smaller tile wastes less of a thin matrix.
// What still limits it: a split costs the partial products' round trip through memory, and
// blocks of smaller tiles reuse less of each loaded element; a shape whose tiles make one wave
// and a little more still leaves SMs idle in the last one (stream-K would even the shares out).
#include <algorithm>
#include <cstdio>
#include <string>

#include "check.h"
#include "matmul.h"

namespace {

// The model's rates, rounded from gpu7 and its tile shapes on an H100 (chapter README): what one
// SM multiplies per second in a 128x128 tile, as a share of it in the smaller tiles (they reuse
// less of what they load: at 4096^3 and 8192^3, 128x64 ran at 0.95 of 128x128, 64x64 at 0.8 to
// 0.86), what memory moves per second, and what a launch costs.
constexpr double kFlopsPerSm = 0.40e12;
constexpr double kTileSpeed[kGpu7TileShapes] = {1.0, 0.95, 0.85};
constexpr double kBytesPerSecond = 2.5e12;
constexpr double kLaunchSeconds = 3e-6;
constexpr int kMostShares = 16;

struct Plan {
  int tiles = 0;   // which of gpu7_tiles
  int shares = 1;  // k cut into this many shares of whole k-tiles
  double seconds = 0;
};

int multiprocessors() {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// The plan the model gives the shortest time.
Plan plan_for(int m, int n, int k) {
  static const int sms = multiprocessors();
  Plan best;
  // EXERCISE: for each tile shape and each number of shares (1 .. kMostShares, no more than k has
  //   k-tiles), the time of ceil(blocks / resident blocks) waves of one block's share of the work,
  //   plus, where there is more than one share, the shares' traffic (each slice written and read,
  //   C written: (2 shares + 1) m n doubles) and the sum's launch; keep the fastest in `best`
  for (int t = 0; t < kGpu7TileShapes; ++t) {
    const TensorCoreTiles& shape = gpu7_tiles[t];
    const int per_sm = std::max(1, shape.blocks_per_sm());
    const long long tiles = (long long)blocks_for(m, shape.bm) * blocks_for(n, shape.bn);
    const int k_tiles = int(blocks_for(k, shape.bk));
    for (int shares = 1; shares <= std::min(kMostShares, k_tiles); ++shares) {
      const int share_tiles = int(blocks_for(k_tiles, shares));
      if (shares > 1 && int(blocks_for(k_tiles, share_tiles)) < shares) continue;  // an empty share: fewer do the same
      const long long waves = (tiles * shares + (long long)sms * per_sm - 1) / ((long long)sms * per_sm);
      const double block_flops = 2.0 * shape.bm * shape.bn * share_tiles * shape.bk;
      double seconds = waves * block_flops / (kFlopsPerSm * kTileSpeed[t] / per_sm);
      if (shares > 1) seconds += (2.0 * shares + 1) * m * n * sizeof(double) / kBytesPerSecond + kLaunchSeconds;
      if (best.seconds == 0 || seconds < best.seconds) best = {t, shares, seconds};
    }
  }

  return best;
}

// C = the sum of `shares` slices of m n partial products (count = m n), one element per thread.
__global__ void sum_shares(long long count, int shares, const double* __restrict__ slices, double* __restrict__ C) {
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < count; e += (long long)gridDim.x * blockDim.x) {
    // EXERCISE: C[e] = the sum over the shares z of slices[z count + e]
    double sum = 0;
    for (int z = 0; z < shares; ++z) sum += slices[z * count + e];
    C[e] = sum;
  }
}

// The partial products live in memory from a pool that keeps what it had (no new allocation from
// the driver at every call).
double* slices_for(size_t doubles, cudaStream_t stream) {
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
  double* slices = nullptr;
  CUDA_CHECK(cudaMallocAsync(&slices, doubles * sizeof(double), stream));
  return slices;
}

void launch_plan(int m, int n, int k, const Plan& plan, const double* A, const double* B, double* C,
                 cudaStream_t stream) {
  const TensorCoreTiles& shape = gpu7_tiles[plan.tiles];
  if (plan.shares == 1) {
    shape.launch(m, n, k, 1, A, B, C, stream);
    return;
  }
  const long long count = (long long)m * n;
  double* slices = slices_for(size_t(count) * plan.shares, stream);
  shape.launch(m, n, k, plan.shares, A, B, slices, stream);
  const int blocks = int(std::min<long long>((count + 255) / 256, 4096));  // the rest by striding
  sum_shares<<<blocks, 256, 0, stream>>>(count, plan.shares, slices, C);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaFreeAsync(slices, stream));
}

void launch(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  launch_plan(m, n, k, plan_for(m, n, k), A, B, C, stream);
}

// One plan forced, whatever the shape: the sweep's points (and the tests' split-K cases).
template <int TILES, int SHARES>
void launch_forced(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  if (m == 0 || n == 0) return;
  launch_plan(m, n, k, {TILES, std::min(SHARES, std::max(1, int(blocks_for(k, gpu7_tiles[TILES].bk)))), 0}, A, B, C, stream);
}

// The plan in words: "64x64 tiles, k in 4 shares: 256 blocks, 1 wave of 264".
std::string plan_text(int m, int n, int k) {
  const Plan plan = plan_for(m, n, k);
  const TensorCoreTiles& shape = gpu7_tiles[plan.tiles];
  const long long blocks = (long long)blocks_for(m, shape.bm) * blocks_for(n, shape.bn) * plan.shares;
  const long long slots = (long long)multiprocessors() * std::max(1, shape.blocks_per_sm());
  char text[160];
  std::snprintf(text, sizeof text, "%dx%d tiles, k in %d share%s: %lld blocks, %lld wave%s of %lld", shape.bm, shape.bn,
                plan.shares, plan.shares > 1 ? "s" : "", blocks, (blocks + slots - 1) / slots,
                (blocks + slots - 1) / slots > 1 ? "s" : "", slots);
  return text;
}

}  // namespace

extern "C" void matmult_gpu8(int m, int n, int k, double* A, double* B, double* C) {
  matmult_on_device(m, n, k, A, B, C, launch);
}

constexpr MatmulVariant kSweep[] = {
    {"gpu8_128x128_split4", launch_forced<0, 4>},  // gpu7's tile, k in 4 shares
    {"gpu8_128x64", launch_forced<1, 1>},          // 128x64 tiles, two blocks per SM
    {"gpu8_64x64", launch_forced<2, 1>},           // 64x64 tiles
    {"gpu8_64x64_split4", launch_forced<2, 4>},    // 64x64 tiles, k in 4 shares
};
const MatmulCode matmul_gpu8{matmult_gpu8, launch, kSweep, plan_text};
