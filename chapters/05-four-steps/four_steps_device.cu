// The time step on the device: each block reduces its cells' stable rates in shared memory and
// folds its maximum into the clock with one atomicMax on the double's bits (non-negative
// doubles order like their bit patterns); one thread then sets dt and t, so the host never
// waits for the step: the Runge-Kutta kernels read dt from the clock.
#include <algorithm>

#include "check.h"
#include "step_support.h"

namespace {

constexpr int kReduceThreads = 256;

__global__ void largest_rate(Mesh m, Gas g, const double* q, Clock* clock) {
  __shared__ double block_max[kReduceThreads];
  double rate = 0;
  for (size_t c = blockIdx.x * size_t(blockDim.x) + threadIdx.x; c < m.cells(); c += size_t(gridDim.x) * blockDim.x) {
    const int j = int(c / m.nx), i = int(c % m.nx);
    rate = fmax(rate, stable_rate<false>(m, g, load_cell(m, q, at(m, i, j))));
  }
  block_max[threadIdx.x] = rate;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) block_max[threadIdx.x] = fmax(block_max[threadIdx.x], block_max[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicMax(&clock->rate_bits, static_cast<unsigned long long>(__double_as_longlong(block_max[0])));
}

__global__ void set_step(double cfl, double t_end, Clock* clock) {
  const double rate = __longlong_as_double(static_cast<long long>(clock->rate_bits));
  clock->dt = fmax(0.0, fmin(cfl / rate, t_end - clock->t));
  clock->t += clock->dt;
  clock->rate_bits = 0;  // ready for the next step's reduction
}

}  // namespace

void device_time_step(const Problem& p, const double* q, Clock* clock) {
  // Enough blocks to fill the GPU (the loop strides over the rest), asked each time: host-side
  // queries of microseconds, and right on whichever GPU is current.
  const int resident = tut::resident_blocks(reinterpret_cast<const void*>(largest_rate), kReduceThreads, 0);
  const int needed = int(std::min<size_t>(std::max(1, resident), (p.mesh.cells() + kReduceThreads - 1) / kReduceThreads));
  largest_rate<<<needed, kReduceThreads>>>(p.mesh, p.gas, q, clock);
  set_step<<<1, 1>>>(p.cfl, p.t_end, clock);
  CUDA_CHECK_LAUNCH();
}

void device_step_from_rate(const Problem& p, Clock* clock) {
  set_step<<<1, 1>>>(p.cfl, p.t_end, clock);
  CUDA_CHECK_LAUNCH();
}
