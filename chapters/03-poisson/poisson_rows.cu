#include "poisson_rows.h"

#include <algorithm>
#include <set>
#include <utility>

#include "check.h"
#include "cli.h"

namespace {

constexpr dim3 kBlock{32, 8};  // gpu2's block shape: the same update, on a block's rows

// The same update as gpu2's kernel, on local rows [row_begin, row_begin + nrows) of a block.
__global__ void update(int N, double h2, const double* f, const double* in, double* out, int row_begin, int nrows) {
  const int w = N + 2;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = row_begin + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (c < 1 || c > N || r >= row_begin + nrows) return;
  const size_t at = size_t(r) * w + c;
  out[at] = 0.25 * (in[at - 1] + in[at + 1] + in[at - w] + in[at + w] + h2 * f[at]);
}

// Lets the GPUs of neighbouring blocks copy to each other directly, where they can. Access stays
// enabled for the process, and enabling it twice is an error (which the sanitizer reports): each
// pair is enabled once.
void enable_peer_access(const std::vector<RowBlock>& blocks) {
  static std::set<std::pair<int, int>> enabled;
  for (size_t q = 0; q + 1 < blocks.size(); ++q) {
    const int x = blocks[q].device, y = blocks[q + 1].device;
    int can = 0;
    if (x == y) continue;
    CUDA_CHECK(cudaDeviceCanAccessPeer(&can, x, y));
    for (const auto& pair : {std::pair{x, y}, std::pair{y, x}}) {
      if (!can || !enabled.insert(pair).second) continue;
      CUDA_CHECK(cudaSetDevice(pair.first));
      const cudaError_t done = cudaDeviceEnablePeerAccess(pair.second, 0);
      if (done == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();  // by a library in this process (NCCL)
      else CUDA_CHECK(done);
    }
  }
}

}  // namespace

RowBlocks::RowBlocks(const PoissonProblem& p, const std::vector<double>& u, const SolveOptions& options, int only)
    : grid_(p.grid) {
  if (options.tolerance > 0)
    throw tut::UsageError("the multi-GPU stages run a fixed number of iterations (no tolerance), as the course's");
  int devices = 0;
  CUDA_CHECK(cudaGetDeviceCount(&devices));
  CUDA_CHECK(cudaGetDevice(&home_device_));
  count_ = std::max(1, std::min(options.parts, p.grid.N));  // no block without rows
  const size_t w = size_t(width());
  int row = 1;
  for (int q = 0; q < count_; ++q) {
    const int rows = p.grid.N / count_ + (q < p.grid.N % count_ ? 1 : 0);
    const int first_row = row;
    row += rows;
    if (only >= 0 && q != only) continue;
    RowBlock& block = blocks_.emplace_back();
    block.index = q;
    block.device = only >= 0 ? home_device_ : q % devices;
    block.first_row = first_row;
    block.rows = rows;
    CUDA_CHECK(cudaSetDevice(block.device));
    const size_t count = size_t(rows + 2) * w, offset = size_t(first_row - 1) * w;
    for (tut::DeviceBuffer<double>* field : {&block.a, &block.b, &block.f}) *field = tut::DeviceBuffer<double>(count);
    block.a.upload(u.data() + offset);
    block.b.upload(u.data() + offset);
    block.f.upload(p.f.data() + offset);
    CUDA_CHECK(cudaStreamCreateWithFlags(&block.edge, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&block.inner, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&block.edge_done, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&block.inner_done, cudaEventDisableTiming));
  }
  enable_peer_access(blocks_);
  synchronize();
}

RowBlocks::~RowBlocks() {
  for (RowBlock& block : blocks_) {
    cudaSetDevice(block.device);
    cudaStreamDestroy(block.edge);
    cudaStreamDestroy(block.inner);
    cudaEventDestroy(block.edge_done);
    cudaEventDestroy(block.inner_done);
    for (tut::DeviceBuffer<double>* field : {&block.a, &block.b, &block.f})
      *field = tut::DeviceBuffer<double>();  // freed while their own GPU is current
  }
  cudaSetDevice(home_device_);
}

void RowBlocks::update_rows(RowBlock& block, int t, int first, int count, cudaStream_t stream) {
  if (count <= 0) return;
  CUDA_CHECK(cudaSetDevice(block.device));
  const dim3 grid(blocks_for(width(), kBlock.x), blocks_for(count, kBlock.y));
  update<<<grid, kBlock, 0, stream>>>(grid_.N, grid_.h() * grid_.h(), block.f.get(), block.in(t), block.out(t), first,
                                      count);
  CUDA_CHECK_LAUNCH();
}

void RowBlocks::synchronize() {
  for (const RowBlock& block : blocks_) {
    CUDA_CHECK(cudaSetDevice(block.device));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK(cudaSetDevice(home_device_));
}

void RowBlocks::start_clock() {
  synchronize();
  start_ = std::chrono::steady_clock::now();
}

SolveResult RowBlocks::finish(std::vector<double>& u, int iterations) {
  synchronize();
  SolveResult result;
  result.iterations = iterations;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  for (const RowBlock& block : blocks_)
    CUDA_CHECK(cudaMemcpy(u.data() + size_t(block.first_row) * width(), block.in(iterations) + width(),
                          size_t(block.rows) * row_bytes(), cudaMemcpyDeviceToHost));
  return result;
}
