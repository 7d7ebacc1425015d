// Row blocks of the grid spread over GPUs, shared by the multi-GPU stages. Part p holds its
// `rows` interior rows plus one halo row above and below, two fields and f; part p lives on
// GPU p % (visible GPUs), so several parts may share one GPU (which is how the halo logic is
// tested on a machine with one). Each part has two streams: `edge` updates its first and last
// rows and carries the halo exchange, `inner` updates the rest at the same time.
#pragma once
#include <functional>
#include <vector>

#include "poisson.h"

struct Part {
  int index = 0;                            // which block of the grid: 0 at the bottom
  int device = 0, first_row = 0, rows = 0;  // global row of local row 1, and how many rows
  tut::DeviceBuffer<double> a, b, f;        // (rows + 2) x (N + 2) each
  cudaStream_t edge = nullptr, inner = nullptr;
  cudaEvent_t edge_done = nullptr, inner_done = nullptr;
  // The field read at iteration t and the one written (they swap every iteration).
  double* in(int t) const { return t % 2 ? b.get() : a.get(); }
  double* out(int t) const { return t % 2 ? a.get() : b.get(); }
};

// Which blocks this process holds: all of them (one process driving every GPU), or, with one
// process per GPU (MPI), only block `only_part`, on the current GPU.
struct Layout {
  int parts = 1;
  bool distinct_devices = false;  // one block per GPU (NCCL needs that); otherwise blocks may share
  int only_part = -1;
};

class Partition {
 public:
  Partition(const PoissonProblem& p, const std::vector<double>& u, const Layout& layout);
  ~Partition();
  Partition(const Partition&) = delete;
  Partition& operator=(const Partition&) = delete;

  std::vector<Part>& parts() { return parts_; }  // the blocks this process holds
  int total_parts() const { return total_parts_; }
  int width() const { return grid_.width(); }
  size_t row_bytes() const { return size_t(grid_.width()) * sizeof(double); }
  void update_edge_rows(Part& part, int t);   // on part.edge
  void update_inner_rows(Part& part, int t);  // on part.inner
  void download(std::vector<double>& u, int t);  // this process's rows of the field after t iterations
  void synchronize();

 private:
  PoissonGrid grid_;
  int total_parts_ = 1;
  int home_device_ = 0;  // the caller's current GPU, restored when done
  std::vector<Part> parts_;
};

// `iterations` Jacobi iterations over the parts, the halo exchange left to `exchange(t)`,
// which runs after every part's edge rows of iteration t are enqueued and must move each
// part's new first and last rows into its neighbours' halos of out(t). `setup`, if given,
// runs once before the clock starts. Times the loop only.
SolveResult iterate_partitioned(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o,
                                const Layout& layout, const std::function<void(Partition&, int t)>& exchange,
                                const std::function<void(Partition&)>& setup = {});
