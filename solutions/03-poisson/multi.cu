// poisson multi: rows split over GPUs, peer copies.
//   run:  build/chapters/03-poisson/jacobi multi 16384 1000 --parts 2
//   test: meson test -C build poisson-multi
// The grid split by rows across the GPUs (the report's section 2.3). Each GPU updates its rows;
// after each iteration it sends its first and last new rows to its neighbours' halos with peer-to-
// peer copies (NVLink where there is one).
// Change from gpu2: several GPUs, so several memories' bandwidth. The edge rows are updated
// first on their own stream and their copies start at once, while the other stream updates
// the inner rows: the exchange hides behind the computation.
// What still limits it: one halo row per neighbour per iteration, and one launch per stream
// per iteration: small grids cannot hide them.
#include "check.h"
#include "poisson_parts.h"

namespace {

void exchange_halos(Partition& partition, int t) {
  std::vector<Part>& parts = partition.parts();
  const int w = partition.width();
  for (size_t q = 0; q < parts.size(); ++q) {
    Part& part = parts[q];
    // EXERCISE: on part.edge, copy this part's new first row (local row 1 of out(t)) into the part
    //   above's bottom halo (its local row rows + 1), and its new last row (local row rows) into the
    //   part below's top halo (local row 0), with cudaMemcpyPeerAsync
    if (q > 0) {
      Part& above = parts[q - 1];
      CUDA_CHECK(cudaMemcpyPeerAsync(above.out(t) + size_t(above.rows + 1) * w, above.device, part.out(t) + w,
                                     part.device, partition.row_bytes(), part.edge));
    }
    if (q + 1 < parts.size()) {
      Part& below = parts[q + 1];
      CUDA_CHECK(cudaMemcpyPeerAsync(below.out(t), below.device, part.out(t) + size_t(part.rows) * w, part.device,
                                     partition.row_bytes(), part.edge));
    }
  }
}

SolveResult solve(const PoissonProblem& p, std::vector<double>& u, const SolveOptions& o) {
  return iterate_partitioned(p, u, o, Layout{o.parts}, exchange_halos);
}

}  // namespace

const PoissonCode poisson_multi{solve};
