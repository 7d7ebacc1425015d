#include "figures.h"

#include <cuda_runtime.h>

#include "check.h"

namespace tut {

namespace {

int attribute(cudaDeviceAttr what, int device) {
  int value = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&value, what, device));
  return value;
}

struct ArchLanes {
  int major, minor, fp32, fp64;
  bool fp64_tensor;  // FP64 tensor cores at twice the FP64 vector rate
};

// Per-SM lanes from the architecture whitepapers (Volta, Turing, Ampere, Ada, Hopper).
constexpr ArchLanes kArchs[] = {
    {7, 0, 64, 32, false}, {7, 5, 64, 2, false},  {8, 0, 64, 32, true},  {8, 6, 128, 2, false},
    {8, 7, 128, 2, false}, {8, 9, 128, 2, false}, {9, 0, 128, 64, true},
};

}  // namespace

TheoreticalFigures theoretical_figures(int device) {
  TheoreticalFigures f;
  const int major = attribute(cudaDevAttrComputeCapabilityMajor, device);
  const int minor = attribute(cudaDevAttrComputeCapabilityMinor, device);
  const int sms = attribute(cudaDevAttrMultiProcessorCount, device);
  f.clock_ghz = attribute(cudaDevAttrClockRate, device) / 1e6;
  f.memory_clock_ghz = attribute(cudaDevAttrMemoryClockRate, device) / 1e6;
  f.bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
  f.memory_gbps = 2.0 * f.memory_clock_ghz * f.bus_bits / 8.0;
  bool fp64_tensor = false;
  for (const ArchLanes& a : kArchs)
    if (a.major == major && a.minor == minor) {
      f.cores_per_sm = a.fp32;
      f.fp64_per_sm = a.fp64;
      fp64_tensor = a.fp64_tensor;
    }
  f.fp32_gflops = 2.0 * sms * f.cores_per_sm * f.clock_ghz;
  f.fp64_gflops = 2.0 * sms * f.fp64_per_sm * f.clock_ghz;
  f.fp64_tensor_gflops = fp64_tensor ? 2.0 * f.fp64_gflops : f.fp64_gflops;
  return f;
}

}  // namespace tut
