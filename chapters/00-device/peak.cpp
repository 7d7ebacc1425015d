// peak: the measured ceilings next to the theoretical figures: device-to-device copy bandwidth,
// FP32 and FP64 FMA throughput from a kernel built to reach the peak, and cuBLAS SGEMM and
// DGEMM on large random matrices. Every later chapter compares its stages with these.
//   run: build/chapters/00-device/peak [--n 8192] [--repeats 5] [--csv]
#include <iostream>

#include "ceilings.h"
#include "cli.h"
#include "device.h"
#include "figures.h"
#include "report.h"

namespace {

int peak_main(int argc, const char* const* argv) {
  int n = 8192, repeats = 5;
  tut::Format format = tut::Format::human;
  tut::Cli cli("peak", "Measured ceilings (copy bandwidth, FMA rates, cuBLAS GEMM rates) beside the\n"
                       "theoretical figures derived from the device's properties.");
  cli.add_int("n", &n, "matrix size of the SGEMM and DGEMM runs", 256, 32768);
  cli.add_int("repeats", &repeats, "timed runs of each; the median is reported", 1, 1000);
  cli.add_format(&format);
  cli.parse(argc, argv);
  const tut::DeviceInfo device = tut::require_device();
  tut::require_device_memory(3 * size_t(n) * n * sizeof(double), "DGEMM of n = " + std::to_string(n));
  const tut::TheoreticalFigures f = tut::theoretical_figures(device.id);

  tut::Table table({{"ceiling", "ceiling", ""}, {"measured", "measured", "", "%.0f"}, {"theoretical", "theoretical", "", "%.0f"},
                    {"unit", "unit", ""}, {"pct_theoretical", "of theoretical", "%", "%.1f"}, {"verified", "result checked", ""}});
  table.add_note("device", device.describe());
  table.add_note("method", "CUDA events, median of " + std::to_string(repeats) + " after warm-ups; GEMM n = " +
                               std::to_string(n) + "; theoretical figures from the max SM clock and memory clock");
  bool all_verified = true;
  auto add = [&](const std::string& name, double measured, double theoretical, const std::string& unit, bool verified) {
    tut::Table::Row row = table.add_row().set("ceiling", name).set("measured", measured).set("unit", unit);
    row.set("verified", verified ? "yes" : "NO");
    if (theoretical > 0) row.set("theoretical", theoretical).set("pct_theoretical", 100 * measured / theoretical);
    all_verified = all_verified && verified;
  };
  const tut::CopyBandwidth copy = tut::measure_copy_bandwidth(size_t(512) << 20, repeats * 2);
  add("D2D copy, 512 MiB (read + write)", copy.gb_per_s, f.memory_gbps, "GB/s", copy.verified);
  const tut::ArithmeticRate fp32 = tut::measure_fma_rate<float>(repeats);
  add("FP32 FMA kernel", fp32.gflops, f.fp32_gflops, "GFLOP/s", fp32.verified);
  const tut::ArithmeticRate fp64 = tut::measure_fma_rate<double>(repeats);
  add("FP64 FMA kernel", fp64.gflops, f.fp64_gflops, "GFLOP/s", fp64.verified);
  const tut::ArithmeticRate sgemm = tut::measure_gemm_rate<float>(n, repeats);
  add("cuBLAS SGEMM (FP32, no TF32)", sgemm.gflops, f.fp32_gflops, "GFLOP/s", sgemm.verified);
  const tut::ArithmeticRate dgemm = tut::measure_gemm_rate<double>(n, repeats);
  add("cuBLAS DGEMM (FP64 tensor cores)", dgemm.gflops, f.fp64_tensor_gflops, "GFLOP/s", dgemm.verified);
  table.print(std::cout, format);
  if (!all_verified) std::cerr << "peak: a result did not match its host check (see 'result checked')\n";
  return all_verified ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) try {
  return peak_main(argc, argv);
} catch (...) {
  return tut::exit_code_for_failure("peak");
}
