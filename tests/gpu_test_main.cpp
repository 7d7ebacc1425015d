// main() of every GPU test program: with no usable GPU it explains why and exits 77, which
// Meson reports as SKIP; otherwise it runs the GoogleTest cases.
#include <gtest/gtest.h>

#include <cstdio>

#include "device.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const tut::DeviceInfo device = tut::find_device();
  if (!device.usable) {
    std::printf("skipped: %s\n", device.why_not.c_str());
    return tut::kSkipExitCode;
  }
  std::printf("running on %s\n", device.describe().c_str());
  return RUN_ALL_TESTS();
}
