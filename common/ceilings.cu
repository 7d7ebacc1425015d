#include "ceilings.h"

#include "device.h"

namespace tut {

CopyBandwidth measure_copy_bandwidth(size_t bytes, int repeats) {
  DeviceBuffer<char> src(bytes), dst(bytes);
  CUDA_CHECK(cudaMemset(src.get(), 1, bytes));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  CopyBandwidth result;
  result.bytes_per_buffer = bytes;
  result.time = time_device(
      [&] { CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream)); },
      stream, 2, repeats);
  CUDA_CHECK(cudaStreamDestroy(stream));
  result.gb_per_s = 2.0 * double(bytes) / (result.time.median_ms * 1e-3) / 1e9;
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

}  // namespace tut
