// A GPU's theoretical figures, derived from its properties: the numbers a measured ceiling is
// compared with. Cores per SM and FP64 units are not in cudaDeviceProp; they come from the
// architecture (NVIDIA's whitepapers), and are 0 where this table does not know the chip.
#pragma once
#include <string>

namespace tut {

struct TheoreticalFigures {
  int cores_per_sm = 0;            // FP32 lanes per multiprocessor
  int fp64_per_sm = 0;             // FP64 lanes per multiprocessor
  double clock_ghz = 0;            // maximum SM clock
  double memory_clock_ghz = 0;     // memory clock as the runtime reports it
  int bus_bits = 0;
  double memory_gbps = 0;          // 2 (double data rate) x memory clock x bus width
  double fp32_gflops = 0;          // FP32 FMA: 2 flops x lanes x clock
  double fp64_gflops = 0;
  double fp64_tensor_gflops = 0;   // what DGEMM may reach on tensor cores (cc 8.0, 9.0), else = fp64
};

TheoreticalFigures theoretical_figures(int device);

}  // namespace tut
