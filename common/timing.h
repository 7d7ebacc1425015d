// Timing: CUDA events for device work, a steady clock for host work. Warm-up runs come first
// and are never timed (the first call pays for module loading and clock ramp-up); the result
// is the median of the repeats, with the min and max to show the spread.
#pragma once
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <string>
#include <vector>

#include "check.h"

namespace tut {

// An NVTX range over a piece of a run, named after it ("v4: timed", "v4: checked"), so that an
// Nsight Systems timeline reads stage by stage. Without a tool listening it costs nothing.
class Range {
 public:
  explicit Range(const std::string& name) { nvtxRangePushA(name.c_str()); }
  ~Range() { nvtxRangePop(); }
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;
};

struct TimingStats {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int repeats = 0;
};

TimingStats summarize(std::vector<double> samples_ms);  // throws on an empty sample

template <class Work>
TimingStats time_host(Work&& work, int warmups, int repeats) {
  for (int w = 0; w < warmups; ++w) work();
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    work();
    const auto stop = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  return summarize(samples);
}

// `work` enqueues device work on `stream`; only what it enqueues between the events is timed.
template <class Work>
TimingStats time_device(Work&& work, cudaStream_t stream, int warmups, int repeats) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  for (int w = 0; w < warmups; ++w) work();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    CUDA_CHECK(cudaEventRecord(start, stream));
    work();
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    samples.push_back(ms);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return summarize(samples);
}

}  // namespace tut
