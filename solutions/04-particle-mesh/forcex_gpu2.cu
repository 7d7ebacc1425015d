// Force stage gpu2: forcex after loop interchange and strip mining.
//   - Interchange: the thread index runs along k, the fastest axis, so a warp reads and writes
//     128 consecutive bytes: every sector fully used.
//   - Strip mining: each thread walks a strip of STRIP planes along i. The value it loads for
//     plane i + 1 is the one it needs again as the centre and then the left neighbour, so it
//     keeps three values a (i - 1), b (i), c (i + 1) in registers and loads each plane once:
//     STRIP + 2 loads for STRIP results instead of 2 STRIP.
// STRIP is a template parameter, so the loop unrolls and its loads can all be in flight at
// once; the driver sweeps it (--strip).
#include <stdexcept>
#include <string>

#include "check.h"
#include "particle_mesh.h"

namespace {

constexpr int kDefaultStrip = 32;

template <int STRIP>
__global__ void strips_along_i(int N, float two_dx, const float* __restrict__ pot, float* __restrict__ fx) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y, first = blockIdx.z * STRIP;
  if (k >= N) return;
  const int mask = N - 1, plane = N * N, column = j * N + k;
  // EXERCISE: a = pot at plane first - 1 (wrapped), b = pot at plane first; then for each of the
  //   STRIP planes: c = pot at the next plane (wrapped), fx at this plane = (c - a) / two_dx, a = b, b = c
  float a = pot[((first - 1) & mask) * plane + column];
  float b = pot[first * plane + column];
#pragma unroll
  for (int s = 0; s < STRIP; ++s) {
    const int i = first + s;
    const float c = pot[((i + 1) & mask) * plane + column];
    fx[i * plane + column] = (c - a) / two_dx;
    a = b;
    b = c;
  }
  // END EXERCISE
}

template <int STRIP>
void launch(const Mesh& m, const float* pot, float* f, cudaStream_t stream) {
  const unsigned block = m.N < 128 ? m.N : 128;
  strips_along_i<STRIP><<<dim3(blocks_for(m.N, block), m.N, m.N / STRIP), block, 0, stream>>>(m.N, 2.0f * m.dx, pot, f);
}

void run(const Mesh& m, int axis, const float* pot, float* f, int strip, cudaStream_t stream) {
  if (axis != kAxisX) throw std::invalid_argument("force stage gpu2 computes forcex only");
  if (strip == 0) strip = kDefaultStrip;
  if (strip > m.N) strip = m.N;  // a strip longer than the mesh would wrap onto itself
  switch (strip) {
    case 1: launch<1>(m, pot, f, stream); break;
    case 2: launch<2>(m, pot, f, stream); break;
    case 4: launch<4>(m, pot, f, stream); break;
    case 8: launch<8>(m, pot, f, stream); break;
    case 16: launch<16>(m, pot, f, stream); break;
    case 32: launch<32>(m, pot, f, stream); break;
    case 64: launch<64>(m, pot, f, stream); break;
    case 128: launch<128>(m, pot, f, stream); break;
    default: throw std::invalid_argument("force stage gpu2: strip must be a power of two up to 128, not " +
                                         std::to_string(strip));
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace

const ForceStage forcex_gpu2 = {"gpu2", "forcex, threads along k, strips along i", true, 1u << kAxisX, run,
                                PM_STAGE_FILE("forcex_gpu2.cu")};
