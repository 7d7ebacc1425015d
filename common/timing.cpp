#include "timing.h"

#include <algorithm>
#include <stdexcept>

namespace tut {

TimingStats summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("summarize: no timing samples");
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  TimingStats s;
  s.median_ms = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.min_ms = samples.front();
  s.max_ms = samples.back();
  s.repeats = int(n);
  return s;
}

DeviceTimer::DeviceTimer(cudaStream_t stream) : stream_(stream) {
  CUDA_CHECK(cudaEventCreate(&start_));
  CUDA_CHECK(cudaEventCreate(&stop_));
}

DeviceTimer::~DeviceTimer() {
  cudaEventDestroy(start_);  // no check: a destructor must not throw
  cudaEventDestroy(stop_);
}

void DeviceTimer::start() { CUDA_CHECK(cudaEventRecord(start_, stream_)); }

void DeviceTimer::stop() {
  CUDA_CHECK(cudaEventRecord(stop_, stream_));
  CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  laps_.push_back(ms);
}

}  // namespace tut
