// bandwidth: measured copy rates between host and device (pageable and pinned host memory),
// within the device, and between GPUs (peer to peer), over a range of sizes: small copies
// are dominated by latency, large ones by the link.
//   run: build/chapters/00-device/bandwidth [--min-bytes N] [--max-bytes N] [--repeats N] [--csv]
#include <cuda_runtime.h>

#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <vector>

#include "check.h"
#include "cli.h"
#include "device.h"
#include "report.h"
#include "timing.h"

namespace {

struct Options {
  long long min_bytes = 4096, max_bytes = 1ll << 30;
  int repeats = 10;
  tut::Format format = tut::Format::human;
};

int bandwidth_main(int argc, const char* const* argv) {
  Options o;
  tut::Cli cli("bandwidth", "Measured copy bandwidths: host<->device (pageable, pinned), device-to-device,\n"
                            "peer-to-peer; sizes from --min-bytes to --max-bytes, each 4 times the last.");
  cli.add_value("min-bytes", "N", "smallest copy", "4096",
                [&](const std::string& t) { o.min_bytes = tut::parse_integer("--min-bytes", t, 1, 1ll << 36); });
  cli.add_value("max-bytes", "N", "largest copy", "1073741824",
                [&](const std::string& t) { o.max_bytes = tut::parse_integer("--max-bytes", t, 1, 1ll << 36); });
  cli.add_int("repeats", &o.repeats, "timed copies per size; the median is reported", 1, 1000);
  cli.add_format(&o.format);
  cli.parse(argc, argv);
  if (o.min_bytes > o.max_bytes) throw tut::UsageError("--min-bytes must not exceed --max-bytes");
  const tut::DeviceInfo device = tut::require_device();
  const size_t largest = size_t(o.max_bytes);
  tut::require_device_memory(2 * largest, "copies of up to " + tut::format_bytes(double(largest)) + " (two buffers)");

  std::vector<char> pageable(largest, 1);  // written once, so its pages exist before timing
  tut::PinnedBuffer<char> pinned(largest);  // page-locked: the copy engines read it directly
  std::memset(pinned.get(), 1, largest);
  tut::DeviceBuffer<char> src(largest), dst(largest);
  CUDA_CHECK(cudaMemset(src.get(), 1, largest));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));

  struct Kind {
    std::string name;
    double bytes_factor;  // D2D counts the read and the write
    std::function<void(size_t)> copy;
  };
  std::vector<Kind> kinds = {
      {"H2D pageable", 1, [&](size_t n) { CUDA_CHECK(cudaMemcpyAsync(dst.get(), pageable.data(), n, cudaMemcpyHostToDevice, stream)); }},
      {"H2D pinned", 1, [&](size_t n) { CUDA_CHECK(cudaMemcpyAsync(dst.get(), pinned.get(), n, cudaMemcpyHostToDevice, stream)); }},
      {"D2H pageable", 1, [&](size_t n) { CUDA_CHECK(cudaMemcpyAsync(pageable.data(), src.get(), n, cudaMemcpyDeviceToHost, stream)); }},
      {"D2H pinned", 1, [&](size_t n) { CUDA_CHECK(cudaMemcpyAsync(pinned.get(), src.get(), n, cudaMemcpyDeviceToHost, stream)); }},
      {"D2D", 2, [&](size_t n) { CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), n, cudaMemcpyDeviceToDevice, stream)); }},
  };
  // Peer to peer: from GPU 0 to each other GPU (the data crosses the link once).
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  std::vector<std::unique_ptr<tut::DeviceBuffer<char>>> peer_buffers;
  for (int peer = 1; peer < count; ++peer) {
    int can = 0;
    CUDA_CHECK(cudaDeviceCanAccessPeer(&can, 0, peer));
    CUDA_CHECK(cudaSetDevice(peer));
    peer_buffers.push_back(std::make_unique<tut::DeviceBuffer<char>>(largest));
    CUDA_CHECK(cudaSetDevice(0));
    if (can) {
      const cudaError_t enabled = cudaDeviceEnablePeerAccess(peer, 0);
      if (enabled != cudaErrorPeerAccessAlreadyEnabled) CUDA_CHECK(enabled);
    }
    char* target = peer_buffers.back()->get();
    kinds.push_back({"P2P 0->" + std::to_string(peer) + (can ? "" : " (via host)"), 1, [&, target, peer](size_t n) {
                       CUDA_CHECK(cudaMemcpyPeerAsync(target, peer, src.get(), 0, n, stream));
                     }});
  }

  tut::Table table({{"kind", "copy", ""}, {"bytes", "size", "B", "%.0f"}, {"time_us", "time", "us", "%.1f"},
                    {"gb_per_s", "bandwidth", "GB/s", "%.2f"}});
  table.add_note("device", device.describe());
  table.add_note("method", "cudaMemcpyAsync between CUDA events, median of " + std::to_string(o.repeats) +
                               " after a warm-up; D2D counts bytes read + written, the others bytes moved");
  for (const Kind& kind : kinds)
    for (size_t n = size_t(o.min_bytes);; n = std::min(n * 4, largest)) {
      const tut::TimingStats t = tut::time_device([&] { kind.copy(n); }, stream, 1, o.repeats);
      const double gbps = kind.bytes_factor * double(n) / (t.median_ms * 1e-3) / 1e9;
      table.add_row().set("kind", kind.name).set("bytes", double(n)).set("time_us", t.median_ms * 1e3).set("gb_per_s", gbps);
      if (n == largest) break;
    }
  CUDA_CHECK(cudaStreamDestroy(stream));
  table.print(std::cout, o.format);
  return 0;
}

}  // namespace

int main(int argc, char** argv) try {
  return bandwidth_main(argc, argv);
} catch (...) {
  return tut::exit_code_for_failure("bandwidth");
}
