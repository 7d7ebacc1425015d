// Exercise skeleton generated from solutions/05-four-steps/step5_mpi.cpp by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// Step 5, the slides' last CPU row, OpenMP + MPI: cpu5.
//   run:  mpirun -np 2 -x OMP_NUM_THREADS=8 build-ex/chapters/05-four-steps/vortex_mpi --size 501 --steps 20
//   test: meson test -C build-ex four-steps-cpu5 --print-errorlogs
// cpu4's tiles on row blocks over MPI processes (one per socket or NUMA node, say), OpenMP
// threads inside each. Every process holds whole arrays but computes only its own rows. The
// stencil reaches two rows across a block's edge, so after each Runge-Kutta stage a process
// sends its first two rows to the process below and its last two to the one above (periodic:
// the last block is followed by the first) and receives theirs into the rows around its block.
// The time step's largest rate is reduced over the threads, then over the processes. At the
// end every process gathers the whole state. What it buys: each process's threads share one
// memory controller and cache, none reaches across to another socket's memory. What it costs:
// the exchanges, four messages of 8 rows of values per Runge-Kutta stage, and an all-reduce per
// time step, each a wait for the slowest process.
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "step_support.h"

namespace {

// This process's rows [begin, end), and its neighbours'. A block needs at least two rows (the
// stencil's reach), so a mesh of few rows uses fewer processes; the others are idle.
struct Block {
  int rank, used, begin, end;
  bool idle() const { return rank >= used; }
  int below() const { return (rank + used - 1) % used; }
  int above() const { return (rank + 1) % used; }
};

Block block_of(int rank, int used, int ny) {
  if (rank >= used) return {rank, used, ny, ny};
  return {rank, used, int(long(rank) * ny / used), int(long(rank + 1) * ny / used)};
}

int processes() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

Block my_block(int ny) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return block_of(rank, std::min(processes(), std::max(1, ny / 2)), ny);
}

void start_mpi() {  // a program that did not start MPI runs as one process
  int started = 0;
  MPI_Initialized(&started);
  if (started) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);  // only master threads call MPI
  std::atexit([] {
    int finished = 0;
    MPI_Finalized(&finished);
    if (!finished) MPI_Finalize();
  });
}

double largest_over_processes(double rate) {
  MPI_Allreduce(MPI_IN_PLACE, &rate, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return rate;
}

// Rows `first` and `first + 1` (wrapped) of every variable, as one message of 8 rows.
void pack(const Mesh& m, const double* x, int first, double* buffer) {
  for (int v = 0; v < kVars; ++v)
    for (int k = 0; k < 2; ++k) {
      const double* row = x + v * m.plane() + at(m, 0, wrap(first, k, m.ny));
      std::copy(row, row + m.nx, buffer + (2 * v + k) * m.nx);
    }
}
void unpack(const Mesh& m, double* x, int first, const double* buffer) {
  for (int v = 0; v < kVars; ++v)
    for (int k = 0; k < 2; ++k)
      std::copy(buffer + (2 * v + k) * m.nx, buffer + (2 * v + k + 1) * m.nx, x + v * m.plane() + at(m, 0, wrap(first, k, m.ny)));
}

// The two rows on each side of the block, from the processes that computed them.
void exchange_halos(const Mesh& m, double* x, const Block& b, std::vector<double>& send, std::vector<double>& receive) {
  if (b.idle()) return;
  const int count = int(send.size());
  // TODO(exercise): send the block's first two rows (b.begin) to the process below and receive the two
  //   rows after the block (b.end) from the one above; then the block's last two rows (b.end - 2)
  //   up and the two rows before it (b.begin - 2) from below (pack, MPI_Sendrecv, unpack)
}

// Every process's rows into every process's q, plane by plane (a plane's rows are contiguous).
void gather_state(const Mesh& m, double* q, const Block& b) {
  std::vector<int> counts(processes()), offsets(processes());
  for (int r = 0; r < processes(); ++r) {
    const Block other = block_of(r, b.used, m.ny);
    counts[r] = (other.end - other.begin) * m.pitch;
    offsets[r] = other.begin * m.pitch;
  }
  for (int v = 0; v < kVars; ++v)
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, q + v * m.plane(), counts.data(), offsets.data(), MPI_DOUBLE,
                   MPI_COMM_WORLD);
}

void run_cpu5(const Problem& p, double* q, double* work, Clock* clock, int steps) {
  run_row_blocks(p, q, work, clock, steps, largest_over_processes);
}

}  // namespace

void run_row_blocks(const Problem& p, double* q, double* work, Clock* clock, int steps, double (*across)(double)) {
  start_mpi();
  const Mesh& m = p.mesh;
  const Block b = my_block(m.ny);
  std::vector<double> send(2 * kVars * m.nx), receive(send.size());
#pragma omp parallel
  for (int n = 0; n < steps; ++n) {
    host_time_step(p, q, clock, b.begin, b.end, across);
    for (int s = 0; s < 3; ++s) {
      const StageBuffers sb = stage_buffers(m, q, work, s);
      tiled_stage(p, kRungeKutta[s], clock->dt, q, sb.in, sb.out, b.begin, b.end);
#pragma omp master
      exchange_halos(m, sb.out, b, send, receive);
#pragma omp barrier
    }
  }
  gather_state(m, q, b);
}

const FourStepsCode four_steps_cpu5{run_cpu5, kRungeKuttaPlanes};
