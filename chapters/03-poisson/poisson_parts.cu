#include "poisson_parts.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "check.h"
#include "cli.h"

namespace {

// The same update as gpu2's kernel, on local rows [row_begin, row_begin + nrows) of a part.
__global__ void update_rows(int N, double h2, const double* f, const double* in, double* out, int row_begin, int nrows) {
  const int w = N + 2;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = row_begin + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (c < 1 || c > N || r >= row_begin + nrows) return;
  const size_t at = size_t(r) * w + c;
  out[at] = 0.25 * (in[at - 1] + in[at + 1] + in[at - w] + in[at + w] + h2 * f[at]);
}

void launch_rows(const PoissonGrid& g, const Part& part, int t, int row_begin, int nrows, cudaStream_t stream) {
  if (nrows <= 0) return;
  const dim3 block(32, 8), grid(blocks_for(g.width(), block.x), blocks_for(nrows, block.y));
  update_rows<<<grid, block, 0, stream>>>(g.N, g.h() * g.h(), part.f.get(), part.in(t), part.out(t), row_begin, nrows);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

Partition::Partition(const PoissonProblem& p, const std::vector<double>& u, const Layout& layout) : grid_(p.grid) {
  int devices = 0, current = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  CUDA_CHECK(cudaGetDevice(&current));
  home_device_ = current;
  const int nparts = std::max(1, std::min(layout.parts, p.grid.N));  // no block without rows
  if (layout.distinct_devices && layout.only_part < 0 && nparts > devices)
    throw std::invalid_argument(std::to_string(nparts) + " blocks need as many GPUs, and " + std::to_string(devices) +
                                " are visible");
  total_parts_ = nparts;
  const size_t w = size_t(width());
  int row = 1;
  for (int q = 0; q < nparts; ++q) {
    const int rows = p.grid.N / nparts + (q < p.grid.N % nparts ? 1 : 0);  // uneven splits allowed
    const int first_row = row;
    row += rows;
    if (layout.only_part >= 0 && q != layout.only_part) continue;
    Part& part = parts_.emplace_back();
    part.index = q;
    part.device = layout.only_part >= 0 ? current : q % devices;
    part.first_row = first_row;
    part.rows = rows;
    CUDA_CHECK(cudaSetDevice(part.device));
    const size_t count = size_t(part.rows + 2) * w, offset = size_t(part.first_row - 1) * w;
    part.a = tut::DeviceBuffer<double>(count);
    part.b = tut::DeviceBuffer<double>(count);
    part.f = tut::DeviceBuffer<double>(count);
    part.a.upload(u.data() + offset);
    part.b.upload(u.data() + offset);
    part.f.upload(p.f.data() + offset);
    CUDA_CHECK(cudaStreamCreateWithFlags(&part.edge, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&part.inner, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&part.edge_done, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&part.inner_done, cudaEventDisableTiming));
  }
  for (size_t q = 0; q + 1 < parts_.size(); ++q) {  // direct copies between neighbouring GPUs where possible
    const int x = parts_[q].device, y = parts_[q + 1].device;
    int can = 0;
    if (x == y) continue;
    CUDA_CHECK(cudaDeviceCanAccessPeer(&can, x, y));
    for (const auto& [from, to] : {std::pair{x, y}, std::pair{y, x}}) {
      if (!can) break;
      CUDA_CHECK(cudaSetDevice(from));
      const cudaError_t enabled = cudaDeviceEnablePeerAccess(to, 0);
      if (enabled == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
      else CUDA_CHECK(enabled);
    }
  }
  synchronize();
  CUDA_CHECK(cudaSetDevice(home_device_));
}

Partition::~Partition() {
  for (Part& part : parts_) {
    cudaSetDevice(part.device);
    cudaStreamDestroy(part.edge);
    cudaStreamDestroy(part.inner);
    cudaEventDestroy(part.edge_done);
    cudaEventDestroy(part.inner_done);
    part.a = tut::DeviceBuffer<double>();  // freed while its own GPU is current
    part.b = tut::DeviceBuffer<double>();
    part.f = tut::DeviceBuffer<double>();
  }
  cudaSetDevice(home_device_);
}

void Partition::update_edge_rows(Part& part, int t) {
  CUDA_CHECK(cudaSetDevice(part.device));
  launch_rows(grid_, part, t, 1, 1, part.edge);
  if (part.rows > 1) launch_rows(grid_, part, t, part.rows, 1, part.edge);
}

void Partition::update_inner_rows(Part& part, int t) {
  CUDA_CHECK(cudaSetDevice(part.device));
  launch_rows(grid_, part, t, 2, part.rows - 2, part.inner);
}

void Partition::download(std::vector<double>& u, int t) {
  synchronize();
  for (const Part& part : parts_)
    CUDA_CHECK(cudaMemcpy(u.data() + size_t(part.first_row) * width(), part.in(t) + width(),
                          size_t(part.rows) * row_bytes(), cudaMemcpyDeviceToHost));
}

void Partition::synchronize() {
  for (const Part& part : parts_) {
    CUDA_CHECK(cudaSetDevice(part.device));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
}

SolveResult iterate_partitioned(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o,
                                const Layout& layout, const std::function<void(Partition&, int t)>& exchange,
                                const std::function<void(Partition&)>& setup) {
  if (o.tolerance > 0)
    throw tut::UsageError("the multi-GPU stages run a fixed number of iterations (no tolerance), as the course's");
  Partition partition(p, u, layout);
  std::vector<Part>& parts = partition.parts();
  const int n = int(parts.size());
  if (setup) setup(partition);
  partition.synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < o.max_iterations; ++t) {
    if (t > 0)  // first every wait on iteration t - 1, then the work of iteration t
      for (int q = 0; q < n; ++q) {
        Part& part = parts[q];
        CUDA_CHECK(cudaSetDevice(part.device));
        // edge rows: their neighbours inside the part (inner rows) and the halos must be final,
        // and the neighbours must be done reading the halo rows about to be overwritten
        CUDA_CHECK(cudaStreamWaitEvent(part.edge, part.inner_done, 0));
        if (q > 0) CUDA_CHECK(cudaStreamWaitEvent(part.edge, parts[q - 1].edge_done, 0));
        if (q + 1 < n) CUDA_CHECK(cudaStreamWaitEvent(part.edge, parts[q + 1].edge_done, 0));
        CUDA_CHECK(cudaStreamWaitEvent(part.inner, part.edge_done, 0));  // inner rows read the edge rows
      }
    for (Part& part : parts) partition.update_edge_rows(part, t);
    exchange(partition, t);
    for (Part& part : parts) {
      partition.update_inner_rows(part, t);
      CUDA_CHECK(cudaEventRecord(part.edge_done, part.edge));
      CUDA_CHECK(cudaEventRecord(part.inner_done, part.inner));
    }
  }
  partition.synchronize();
  SolveResult result;
  result.iterations = o.max_iterations;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  partition.download(u, o.max_iterations);
  return result;
}
