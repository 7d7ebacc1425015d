// main() of every GPU test program: with no usable GPU, or fewer than TUT_MIN_GPUS visible
// (a compile-time setting, 1 unless a program asks for more), it explains why and exits 77,
// which Meson reports as SKIP; otherwise it runs the GoogleTest cases. A case that skips itself
// (GTEST_SKIP: this GPU lacks what it needs) makes the whole run a SKIP with its reason, never a
// pass. --gtest_list_tests lists the cases on any machine (tests/tools/gtest_coverage.py).
#include <gtest/gtest.h>

#include <cstdio>

#include <string>

#include "device.h"

#ifdef TUT_TEST_NEEDS
// A program whose stages need more than a GPU names (at compile time) a function that says why
// they cannot run here, or "" when they can: chapter 05's OpenACC tests, openacc_unavailable.
std::string TUT_TEST_NEEDS();
#endif

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (GTEST_FLAG_GET(list_tests)) return RUN_ALL_TESTS();
#ifdef TUT_TEST_NEEDS
  if (const std::string why = TUT_TEST_NEEDS(); !why.empty()) {
    std::printf("skipped: %s\n", why.c_str());
    return tut::kSkipExitCode;
  }
#endif
  const tut::DeviceInfo device = tut::find_device();
  if (!device.usable) {
    std::printf("skipped: %s\n", device.why_not.c_str());
    return tut::kSkipExitCode;
  }
#ifndef TUT_MIN_GPUS
#define TUT_MIN_GPUS 1
#endif
  int gpus = 0;
  cudaGetDeviceCount(&gpus);
  if (gpus < TUT_MIN_GPUS) {
    std::printf("skipped: these tests need at least %d visible GPUs, and %d is visible\n", TUT_MIN_GPUS, gpus);
    return tut::kSkipExitCode;
  }
  std::printf("running on %s, %d visible\n", device.describe().c_str(), gpus);
  const int failed = RUN_ALL_TESTS();
  const int skipped = testing::UnitTest::GetInstance()->skipped_test_count();
  if (failed == 0 && skipped > 0) {
    std::printf("skipped: %d case%s could not run on this machine (the reasons above)\n", skipped, skipped > 1 ? "s" : "");
    return tut::kSkipExitCode;
  }
  return failed;
}
