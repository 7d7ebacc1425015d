#include "ceilings.h"

#include <cooperative_groups.h>
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "device.h"
#include "report.h"

namespace tut {

// Times `copy(stream)`, a copy of `bytes` per buffer, on a stream of its own: read + write counted.
template <class Copy>
CopyBandwidth time_copy(size_t bytes, int repeats, Copy copy) {
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  CopyBandwidth result;
  result.bytes_per_buffer = bytes;
  result.time = time_device([&] { copy(stream); }, stream, 2, repeats);
  CUDA_CHECK(cudaStreamDestroy(stream));
  result.gb_per_s = 2.0 * double(bytes) / (result.time.median_ms * 1e-3) / 1e9;
  return result;
}

// The source of a timed copy holds this byte everywhere, and the destination starts as zeros:
// afterwards every copied byte of the destination must hold it.
constexpr unsigned char kCopyPattern = 0x5A;

bool holds_pattern(const void* device, size_t bytes) {
  std::vector<unsigned char> host(bytes);
  CUDA_CHECK(cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost));
  return std::all_of(host.begin(), host.end(), [](unsigned char b) { return b == kCopyPattern; });
}

CopyBandwidth measure_copy_bandwidth(size_t bytes, int repeats) {
  DeviceBuffer<char> src(bytes), dst(bytes);
  CUDA_CHECK(cudaMemset(src.get(), kCopyPattern, bytes));
  CUDA_CHECK(cudaMemset(dst.get(), 0, bytes));
  CopyBandwidth result = time_copy(bytes, repeats, [&](cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream));
  });
  result.verified = holds_pattern(dst.get(), bytes);
  return result;
}

template <class T>  // float or float4
__global__ void copy_elements(const T* __restrict__ from, T* __restrict__ to, size_t count) {
  const size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (e < count) to[e] = from[e];
}

CopyBandwidth measure_kernel_copy_bandwidth(size_t bytes, int floats_per_thread, int repeats) {
  if (floats_per_thread != 1 && floats_per_thread != 4)
    throw std::invalid_argument("a kernel copy moves 1 or 4 floats per thread");
  DeviceBuffer<float> src(bytes / sizeof(float)), dst(bytes / sizeof(float));
  CUDA_CHECK(cudaMemset(src.get(), kCopyPattern, bytes));
  CUDA_CHECK(cudaMemset(dst.get(), 0, bytes));
  const size_t count = bytes / (sizeof(float) * floats_per_thread);  // whole elements: the tail is not copied
  const size_t copied = count * sizeof(float) * floats_per_thread;
  const unsigned threads = 256, blocks = unsigned((count + threads - 1) / threads);
  CopyBandwidth result = time_copy(copied, repeats, [&](cudaStream_t stream) {
    if (floats_per_thread == 4)
      copy_elements<<<blocks, threads, 0, stream>>>(reinterpret_cast<const float4*>(src.get()),
                                                    reinterpret_cast<float4*>(dst.get()), count);
    else
      copy_elements<<<blocks, threads, 0, stream>>>(src.get(), dst.get(), count);
    CUDA_CHECK_LAUNCH();
  });
  result.verified = holds_pattern(dst.get(), copied);
  return result;
}

__global__ void empty_kernel() {}

double measure_empty_launch_us(int launches, int repeats) {
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  const TimingStats t = time_device(
      [&] {
        for (int l = 0; l < launches; ++l) empty_kernel<<<1, 32, 0, stream>>>();
        CUDA_CHECK_LAUNCH();
      },
      stream, 1, repeats);
  CUDA_CHECK(cudaStreamDestroy(stream));
  return t.median_ms * 1e3 / launches;
}

__global__ void grid_barriers(int count) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (int n = 0; n < count; ++n) grid.sync();
}

double measure_grid_barrier_us(int threads, int barriers, int repeats) {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  const auto time_launch = [&](int count) {
    void* args[] = {&count};
    return time_device(
               [&] {
                 CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(grid_barriers), dim3(sms),
                                                        dim3(threads), args, 0, stream));
               },
               stream, 1, repeats)
        .median_ms;
  };
  const double with = time_launch(barriers), without = time_launch(0);
  CUDA_CHECK(cudaStreamDestroy(stream));
  return (with - without) * 1e3 / barriers;
}

// ---- arithmetic ceilings ---------------------------------------------------------------------

constexpr int kChains = 8;         // independent FMA chains per thread hide the FMA latency
constexpr int kIterations = 16384;

template <class T>
__global__ void fma_chains(T* out, T scale, T shift) {
  T acc[kChains];
#pragma unroll
  for (int r = 0; r < kChains; ++r) acc[r] = T(threadIdx.x % 64 + r) / T(64);
  for (int it = 0; it < kIterations; ++it) {
#pragma unroll
    for (int r = 0; r < kChains; ++r) acc[r] = fma(acc[r], scale, shift);
  }
  T sum = 0;
#pragma unroll
  for (int r = 0; r < kChains; ++r) sum += acc[r];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // stored, so the work cannot be dropped
}

template <class T>
ArithmeticRate measure_fma_rate(int repeats) {
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int threads = 512, blocks = sms * 8;
  DeviceBuffer<T> out(size_t(blocks) * threads);
  const T scale = T(0.9999), shift = T(0.0001);
  ArithmeticRate rate;
  rate.time = time_device(
      [&] {
        fma_chains<T><<<blocks, threads>>>(out.get(), scale, shift);
        CUDA_CHECK_LAUNCH();
      },
      nullptr, 2, repeats);
  const double flops = 2.0 * kChains * kIterations * double(blocks) * threads;
  rate.gflops = flops / (rate.time.median_ms * 1e-3) / 1e9;
  // The same chains of thread 3 on the host, with the same fused operations in the same order.
  std::vector<T> result(out.size());
  out.download(result.data());
  T sum = 0;
  for (int r = 0; r < kChains; ++r) {
    T acc = T(3 + r) / T(64);
    for (int it = 0; it < kIterations; ++it) acc = std::fma(acc, scale, shift);
    sum += acc;
  }
  rate.verified = result[3] == sum;
  return rate;
}

// A reproducible value in [-1, 1) for element `index`: the same on host and device, so the
// host can check entries of C without copying A and B back.
__host__ __device__ inline double hashed_value(uint64_t index, uint64_t seed) {
  uint64_t x = index * 0x9E3779B97F4A7C15ull + seed;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return double(x >> 11) / double(1ull << 53) * 2.0 - 1.0;
}

template <class T>
__global__ void fill_hashed(T* data, size_t count, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    data[i] = T(hashed_value(i, seed));
}

template <class T>
ArithmeticRate measure_gemm_rate(int n, int repeats) {
  const size_t count = size_t(n) * n;
  DeviceBuffer<T> a(count), b(count), c(count);
  fill_hashed<T><<<1024, 256>>>(a.get(), count, 1);
  fill_hashed<T><<<1024, 256>>>(b.get(), count, 2);
  CUDA_CHECK_LAUNCH();
  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));
  CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));  // SGEMM in true FP32, no TF32
  const T one = 1, zero = 0;
  ArithmeticRate rate;
  rate.time = time_device(
      [&] {
        if constexpr (std::is_same_v<T, float>)
          CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.get(), n, b.get(), n, &zero, c.get(), n));
        else
          CUBLAS_CHECK(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.get(), n, b.get(), n, &zero, c.get(), n));
      },
      nullptr, 2, repeats);
  CUBLAS_CHECK(cublasDestroy(handle));
  rate.gflops = 2.0 * double(n) * n * n / (rate.time.median_ms * 1e-3) / 1e9;
  // Column-major: C(i, j) = sum_l A(i, l) B(l, j). Check a few entries in double.
  std::vector<T> result(count);
  c.download(result.data());
  rate.verified = true;
  for (int s = 0; s < 8; ++s) {
    const size_t i = (size_t(s) * 7919) % n, j = (size_t(s) * 104729 + 13) % n;
    double want = 0, magnitude = 0;
    for (size_t l = 0; l < size_t(n); ++l) {
      const double term = double(T(hashed_value(i + l * n, 1))) * double(T(hashed_value(l + j * n, 2)));
      want += term;
      magnitude += std::fabs(term);
    }
    const double eps = std::is_same_v<T, float> ? 1e-5 : 1e-13;  // a loose multiple of unit round-off
    if (!(std::fabs(double(result[i + j * n]) - want) <= eps * magnitude + 1e-30)) rate.verified = false;
  }
  return rate;
}

template ArithmeticRate measure_fma_rate<float>(int);
template ArithmeticRate measure_fma_rate<double>(int);
template ArithmeticRate measure_gemm_rate<float>(int, int);
template ArithmeticRate measure_gemm_rate<double>(int, int);

double note_copy_ceiling(Table& table, size_t bytes) {
  const double gbps = measure_copy_bandwidth(bytes).gb_per_s;
  char text[160];
  std::snprintf(text, sizeof text, "%.0f GB/s device-to-device copy of %s (read + write counted), median of 10", gbps,
                format_bytes(double(bytes)).c_str());
  table.add_note("copy ceiling", text);
  return gbps;
}

}  // namespace tut
