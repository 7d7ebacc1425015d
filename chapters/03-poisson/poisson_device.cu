#include <cmath>

#include "check.h"
#include "poisson.h"

namespace {

constexpr int kReductionThreads = 256;  // threads per block of the reduction: a power of two, for its tree

__global__ void squared_change(int N, const double* a, const double* b, double* sum) {
  __shared__ double partial[kReductionThreads];
  const int w = N + 2;
  double mine = 0;
  const size_t interior = size_t(N) * N;
  for (size_t q = blockIdx.x * size_t(blockDim.x) + threadIdx.x; q < interior; q += size_t(gridDim.x) * blockDim.x) {
    const size_t at = (q / N + 1) * w + q % N + 1;
    const double d = a[at] - b[at];
    mine += d * d;
  }
  partial[threadIdx.x] = mine;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

}  // namespace

double device_change_norm(const PoissonGrid& g, const double* a, const double* b, cudaStream_t stream) {
  tut::DeviceBuffer<double> sum(1);
  CUDA_CHECK(cudaMemsetAsync(sum.get(), 0, sizeof(double), stream));
  // Two blocks per multiprocessor of this GPU: every multiprocessor busy, and few atomics.
  const int multiprocessors = tut::multiprocessor_count();
  squared_change<<<2 * multiprocessors, kReductionThreads, 0, stream>>>(g.N, a, b, sum.get());
  CUDA_CHECK_LAUNCH();
  double host = 0;
  CUDA_CHECK(cudaMemcpyAsync(&host, sum.get(), sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return std::sqrt(host);
}
