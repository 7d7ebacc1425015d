// Exercise skeleton generated from solutions/04-particle-mesh/force_gpu2_strips.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// force gpu2: threads along k, strips along the axis.
//   run:  build-ex/chapters/04-particle-mesh/force --stage cpu,gpu_k,gpu2 --axis x,y
//   test: meson test -C build-ex particle-mesh-force-gpu2 particle-mesh-force-gpu2-idea --print-errorlogs
// Forcex (and forcey) after loop interchange and strip mining.
//   - Interchange: the thread index runs along k, the fastest axis, so a warp reads and writes
//     128 consecutive bytes: every sector fully used (stage gpu_k does only this).
//   - Strip mining: each thread walks a strip of STRIP cells along the axis of the difference.
//     The value it loads for cell c + 1 is the one it needs again as the centre and then as the
//     left neighbour, so it keeps three values a (c - 1), b (c), c (c + 1) in registers and
//     loads each once: STRIP + 2 loads for STRIP results instead of 2 STRIP.
// Along x the strip walks planes (N^2 floats apart), along y rows (N apart); z cannot be walked
// this way, since the threads already run along it. STRIP is a template parameter, so the loop
// unrolls and all its loads can be in flight at once; the force program sweeps it.
#include <stdexcept>
#include <string>

#include "check.h"
#include "particle_mesh.h"

namespace {

constexpr int kDefaultStrip = 32;

// step: cells between neighbours along the axis; across: cells between the blockIdx.y lines
// (x: a strip is the column (j, k) at j N + k; y: the column (i, k) at i N^2 + k).
template <int STRIP>
__global__ void strips(int N, int step, int across, float two_dx, const float* __restrict__ pot, float* __restrict__ f) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x, first = blockIdx.z * STRIP;
  if (k >= N) return;
  const int mask = N - 1, column = blockIdx.y * across + k;
  // TODO(exercise): a = pot at first - 1 (wrapped), b = pot at first; then for each of the STRIP cells
  //   c = first + s: next = pot at c + 1 (wrapped), f at c = (next - a) / two_dx, a = b, b = next
  //   (cell c of the strip is at c * step + column)
}

template <int STRIP>
void launch(const Mesh& m, int axis, const float* pot, float* f, cudaStream_t stream) {
  const int N = m.N, step = axis == kAxisX ? N * N : N, across = axis == kAxisX ? N : N * N;
  const unsigned block = N < 128 ? N : 128;
  strips<STRIP><<<dim3(blocks_for(N, block), N, N / STRIP), block, 0, stream>>>(N, step, across, 2.0f * m.dx, pot, f);
}

void run(const Mesh& m, int axis, const float* pot, float* f, int strip, cudaStream_t stream) {
  if (axis == kAxisZ) throw std::invalid_argument("force stage gpu2 computes forcex and forcey, not forcez");
  if (strip == 0) strip = kDefaultStrip;
  if (strip > m.N) strip = m.N;  // a strip longer than the mesh would wrap onto itself
  switch (strip) {
    case 1: launch<1>(m, axis, pot, f, stream); break;
    case 2: launch<2>(m, axis, pot, f, stream); break;
    case 4: launch<4>(m, axis, pot, f, stream); break;
    case 8: launch<8>(m, axis, pot, f, stream); break;
    case 16: launch<16>(m, axis, pot, f, stream); break;
    case 32: launch<32>(m, axis, pot, f, stream); break;
    case 64: launch<64>(m, axis, pot, f, stream); break;
    case 128: launch<128>(m, axis, pot, f, stream); break;
    default: throw std::invalid_argument("force stage gpu2: strip must be a power of two up to 128, not " +
                                         std::to_string(strip));
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace

const ForceCode force_gpu2{run, (1u << kAxisX) | (1u << kAxisY), kDefaultStrip};
