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

// Lap timers: what runs between start() and stop(), lap after lap; stats() summarises the laps.
// The timed call stays in the caller's own loop, so a program reaches its stage directly:
//   tut::DeviceTimer timer(stream);
//   for (int r = 0; r < repeats; ++r) { timer.start(); stage(..., stream); timer.stop(); }
class HostTimer {
 public:
  void start() { start_ = std::chrono::steady_clock::now(); }
  void stop() { laps_.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count()); }
  TimingStats stats() const { return summarize(laps_); }

 private:
  std::chrono::steady_clock::time_point start_;
  std::vector<double> laps_;
};

// CUDA events on `stream`: only what is enqueued there between start() and stop() is timed;
// stop() waits for it.
class DeviceTimer {
 public:
  explicit DeviceTimer(cudaStream_t stream);
  ~DeviceTimer();
  DeviceTimer(const DeviceTimer&) = delete;
  DeviceTimer& operator=(const DeviceTimer&) = delete;
  void start();
  void stop();
  TimingStats stats() const { return summarize(laps_); }

 private:
  cudaStream_t stream_;
  cudaEvent_t start_, stop_;
  std::vector<double> laps_;
};

// `work(args...)` timed on the host clock. (A function and its arguments, not a lambda around
// them: the call stays one frame deep, as the README's frames from main() to a kernel count.)
template <class Work, class... Args>
TimingStats time_host(Work&& work, int warmups, int repeats, Args&&... args) {
  for (int w = 0; w < warmups; ++w) work(args...);
  HostTimer timer;
  for (int r = 0; r < repeats; ++r) {
    timer.start();
    work(args...);
    timer.stop();
  }
  return timer.stats();
}

// `work(args...)` enqueues device work on `stream`; only what it enqueues between the events is timed.
template <class Work, class... Args>
TimingStats time_device(Work&& work, cudaStream_t stream, int warmups, int repeats, Args&&... args) {
  for (int w = 0; w < warmups; ++w) work(args...);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  DeviceTimer timer(stream);
  for (int r = 0; r < repeats; ++r) {
    timer.start();
    work(args...);
    timer.stop();
  }
  return timer.stats();
}

}  // namespace tut
