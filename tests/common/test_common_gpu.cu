// Unit tests of common/ that need a GPU (run by gpu_test_main.cpp, skipped without one).
#include <gtest/gtest.h>

#include "ceilings.h"
#include "check.h"
#include "device.h"
#include "random_inputs.h"
#include "timing.h"
#include "validate.h"

namespace {

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

TEST(DeviceTiming, EventsMeasureAKernelOfKnownLength) {
  int clock_khz = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const double want_ms = 2.0;  // at the maximum clock; a lower clock only makes it longer
  const long long cycles = (long long)(want_ms * clock_khz);
  const tut::TimingStats t = tut::time_device([&] { spin<<<1, 1>>>(cycles); CUDA_CHECK_LAUNCH(); }, nullptr, 1, 5);
  EXPECT_GE(t.min_ms, 0.95 * want_ms);
  EXPECT_LE(t.median_ms, 50 * want_ms);
  EXPECT_LE(t.min_ms, t.median_ms);
  EXPECT_LE(t.median_ms, t.max_ms);
}

TEST(Ceilings, CopyBandwidthIsPositiveAndUnderTheMemorysTheoreticalRate) {
  int memory_khz = 0, bus_bits = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, 0));
  CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
  const double theoretical_gbps = 2.0 * memory_khz * 1e3 * (bus_bits / 8.0) / 1e9;  // double data rate
  const tut::CopyBandwidth copy = tut::measure_copy_bandwidth(size_t(256) << 20, 5);
  EXPECT_GT(copy.gb_per_s, 0.05 * theoretical_gbps);
  EXPECT_LT(copy.gb_per_s, 1.02 * theoretical_gbps) << "theoretical " << theoretical_gbps << " GB/s";
  EXPECT_TRUE(copy.verified) << "the timed copy did not deliver every byte";
  EXPECT_TRUE(tut::measure_kernel_copy_bandwidth(size_t(64) << 20, 4, 3).verified);
}

TEST(Ceilings, EmptyLaunchTakesMicrosecondsNotZero) {
  const double us = tut::measure_empty_launch_us(1000, 3);
  EXPECT_GT(us, 0.0);
  EXPECT_LT(us, 1000.0);
}

TEST(DeviceBuffer, OutOfMemoryNamesTheSizeAskedFor) {
  try {
    tut::DeviceBuffer<char> huge(size_t(1) << 50);  // 1 PiB
    FAIL() << "allocated 1 PiB";
  } catch (const tut::CudaError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("1024.0 TiB"), std::string::npos) << what;
    EXPECT_NE(what.find("out of device memory"), std::string::npos) << what;
  }
}

TEST(DeviceBuffer, RoundTripsRandomData) {
  std::vector<float> data(1000), back(1000);
  tut::fill_random(data.data(), data.size(), 9, -1.0f, 1.0f);
  tut::DeviceBuffer<float> buffer(data.size());
  buffer.upload(data.data());
  buffer.download(back.data());
  EXPECT_EQ(data, back);
}

}  // namespace
