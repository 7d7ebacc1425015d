// device_info: the properties of every visible GPU, in the layout of the course's Table 1,
// with the theoretical figures derived from them (memory bandwidth, FP32/FP64 peaks).
//   run: build/chapters/00-device/device_info [--csv|--json]
#include <cuda_runtime.h>

#include <iostream>
#include <string>

#include "check.h"
#include "cli.h"
#include "device.h"
#include "figures.h"
#include "report.h"

namespace {

std::string dims3(const int d[3]) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + ")";
}

void describe(int id, int count, tut::Table& table) {
  cudaDeviceProp p;
  CUDA_CHECK(cudaGetDeviceProperties(&p, id));
  const tut::TheoreticalFigures f = tut::theoretical_figures(id);
  const std::string dev = std::to_string(id);
  // The value column mixes numbers and text, so its cells are made here, each in its own form.
  auto row = [&](const std::string& property, const tut::Cell& value, const std::string& unit = "") {
    table.add_row().set("device", dev).set("property", property).set("value", value).set("unit", unit);
  };
  auto known = [](double v, const char* format) { return v > 0 ? tut::Cell::num(v, format) : tut::Cell::none(); };
  row("name", tut::Cell::str(p.name));
  row("compute capability", tut::Cell::str(std::to_string(p.major) + "." + std::to_string(p.minor)));
  row("multiprocessors", tut::Cell::num(p.multiProcessorCount, "%.0f"));
  row("FP32 cores per multiprocessor", known(f.cores_per_sm, "%.0f"));
  row("FP32 cores", known(double(f.cores_per_sm) * p.multiProcessorCount, "%.0f"));
  row("FP64 units per multiprocessor", known(f.fp64_per_sm, "%.0f"));
  row("max SM clock", tut::Cell::num(f.clock_ghz * 1e3, "%.0f"), "MHz");
  row("memory clock", tut::Cell::num(f.memory_clock_ghz * 1e3, "%.0f"), "MHz");
  row("memory bus width", tut::Cell::num(f.bus_bits, "%.0f"), "bit");
  row("global memory", tut::Cell::num(double(p.totalGlobalMem) / (1 << 20), "%.0f"), "MiB");
  row("theoretical memory bandwidth", tut::Cell::num(f.memory_gbps, "%.0f"), "GB/s");
  row("theoretical FP32 FMA peak", known(f.fp32_gflops, "%.0f"), "GFLOP/s");
  row("theoretical FP64 FMA peak", known(f.fp64_gflops, "%.0f"), "GFLOP/s");
  row("theoretical FP64 tensor-core peak", known(f.fp64_tensor_gflops, "%.0f"), "GFLOP/s");
  row("L2 cache", tut::Cell::num(p.l2CacheSize / 1024.0, "%.0f"), "KiB");
  row("constant memory", tut::Cell::num(double(p.totalConstMem), "%.0f"), "B");
  row("shared memory per block", tut::Cell::num(double(p.sharedMemPerBlock), "%.0f"), "B");
  row("shared memory per block (opt-in)", tut::Cell::num(double(p.sharedMemPerBlockOptin), "%.0f"), "B");
  row("shared memory per multiprocessor", tut::Cell::num(double(p.sharedMemPerMultiprocessor), "%.0f"), "B");
  row("registers per block", tut::Cell::num(p.regsPerBlock, "%.0f"));
  row("registers per multiprocessor", tut::Cell::num(p.regsPerMultiprocessor, "%.0f"));
  row("warp size", tut::Cell::num(p.warpSize, "%.0f"));
  row("max threads per multiprocessor", tut::Cell::num(p.maxThreadsPerMultiProcessor, "%.0f"));
  row("max blocks per multiprocessor", tut::Cell::num(p.maxBlocksPerMultiProcessor, "%.0f"));
  row("max threads per block", tut::Cell::num(p.maxThreadsPerBlock, "%.0f"));
  row("max block dimensions (x, y, z)", tut::Cell::str(dims3(p.maxThreadsDim)));
  row("max grid dimensions (x, y, z)", tut::Cell::str(dims3(p.maxGridSize)));
  row("ECC", tut::Cell::str(p.ECCEnabled ? "enabled" : "disabled"));
  row("copy engines", tut::Cell::num(p.asyncEngineCount, "%.0f"));
  row("concurrent kernels", tut::Cell::str(p.concurrentKernels ? "yes" : "no"));
  row("unified addressing", tut::Cell::str(p.unifiedAddressing ? "yes" : "no"));
  row("PCI domain / bus / device", tut::Cell::str(std::to_string(p.pciDomainID) + " / " + std::to_string(p.pciBusID) +
                                                  " / " + std::to_string(p.pciDeviceID)));
  for (int other = 0; other < count; ++other) {
    if (other == id) continue;
    int can = 0;
    CUDA_CHECK(cudaDeviceCanAccessPeer(&can, id, other));
    row("peer access to GPU " + std::to_string(other), tut::Cell::str(can ? "yes" : "no"));
  }
}

int device_info_main(int argc, const char* const* argv) {
  tut::Format format = tut::Format::human;
  tut::Cli cli("device_info", "The properties of every visible GPU and the theoretical figures derived from them.");
  cli.add_format(&format);
  cli.parse(argc, argv);
  const tut::DeviceInfo device = tut::require_device();
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  int driver = 0, runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  tut::Table table({{"device", "GPU", ""}, {"property", "property", ""}, {"value", "value", ""}, {"unit", "unit", ""}});
  table.add_note("CUDA driver / runtime", std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10) +
                                              " / " + std::to_string(runtime / 1000) + "." +
                                              std::to_string(runtime % 1000 / 10));
  table.add_note("GPUs", std::to_string(count));
  for (int id = 0; id < count; ++id) describe(id, count, table);
  table.print(std::cout, format);
  return 0;
}

}  // namespace

int main(int argc, char** argv) try {
  return device_info_main(argc, argv);
} catch (...) {
  return tut::exit_code_for_failure("device_info");
}
