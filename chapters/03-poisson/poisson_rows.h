// Row blocks of the grid on several GPUs: what the multi-GPU stages (multi, nccl) share word for
// word. Block q holds its interior rows plus one halo row above and below, two fields and f, on
// GPU q % (visible GPUs), so several blocks may share one GPU (which is how the halo logic is
// tested on a machine with one). Each block has two streams and an event for each; how a stage
// orders its work on them, the exchange of halos behind the inner rows, is in its own file.
#pragma once
#include <chrono>
#include <vector>

#include "poisson.h"

struct RowBlock {
  int index = 0;                            // which block of the grid: 0 at the bottom
  int device = 0, first_row = 0, rows = 0;  // the global row of local row 1, and how many rows
  tut::DeviceBuffer<double> a, b, f;        // (rows + 2) x (N + 2) each
  cudaStream_t edge = nullptr, inner = nullptr;  // its first and last rows, and the rest
  cudaEvent_t edge_done = nullptr, inner_done = nullptr;
  double* in(int t) const { return t % 2 ? b.get() : a.get(); }   // the field iteration t reads
  double* out(int t) const { return t % 2 ? a.get() : b.get(); }  // and the one it writes
};

class RowBlocks {
 public:
  // The grid cut into options.parts blocks (at most N of them; the rows may split unevenly).
  // With `only` >= 0 (one process per GPU), this process holds block `only` alone, on its GPU.
  RowBlocks(const PoissonProblem& p, const std::vector<double>& u, const SolveOptions& options, int only = -1);
  ~RowBlocks();
  RowBlocks(const RowBlocks&) = delete;
  RowBlocks& operator=(const RowBlocks&) = delete;

  std::vector<RowBlock>& held() { return blocks_; }  // the blocks this process holds
  int count() const { return count_; }                // the blocks of the whole grid
  int width() const { return grid_.width(); }
  size_t row_bytes() const { return size_t(width()) * sizeof(double); }

  // Jacobi iteration t on `count` local rows of a block from row `first` (rows 1 .. rows are
  // interior; none when count <= 0), enqueued on `stream`, the block's GPU made current.
  void update_rows(RowBlock& block, int t, int first, int count, cudaStream_t stream);

  void start_clock();  // once every block is uploaded: the loop's timing starts here
  // After `iterations`: waits for the GPUs, stops the clock, and brings this process's rows back.
  SolveResult finish(std::vector<double>& u, int iterations);

 private:
  void synchronize();
  PoissonGrid grid_;
  int count_ = 1;
  int home_device_ = 0;  // the caller's current GPU, restored when done
  std::vector<RowBlock> blocks_;
  std::chrono::steady_clock::time_point start_;
};
