// jacobi_mpi: the nccl stage with one process per GPU, started by MPI, so that the same
// exchange runs on the GPUs of one machine or of several. Rank r holds block r of the grid
// on GPU (local rank % visible GPUs); the NCCL id is broadcast by MPI; rank 0 gathers the
// rows, reports the time (the slowest rank's), and with --check compares with gpu2.
//   run: mpirun -np 4 build/chapters/03-poisson/jacobi_mpi 16384 1000 [--check]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli.h"
#include "device.h"
#include "poisson_nccl.h"
#include "validate.h"

namespace {

int mpi_main(int argc, char** argv, int rank, int size) {
  if (argc < 3 || argc > 4 || (argc == 4 && std::strcmp(argv[3], "--check") != 0))
    throw tut::UsageError("usage: mpirun -np P jacobi_mpi N iterations [--check]");
  const int N = int(tut::parse_integer("N", argv[1], 1, 46340));
  const int iterations = int(tut::parse_integer("iterations", argv[2], 1, 100000000));
  const bool check = argc == 4;

  MPI_Comm node;  // the ranks of this machine choose their GPUs among its GPUs
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int local_rank = 0, local_size = 1, gpus = 0;
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_size(node, &local_size);
  MPI_Comm_free(&node);
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus < local_size) {
    if (rank == 0)
      std::printf("skipped: %d processes on a machine with %d visible GPUs; NCCL needs one GPU per process\n",
                  local_size, gpus);
    return tut::kSkipExitCode;
  }
  CUDA_CHECK(cudaSetDevice(local_rank));
  if (N < size) throw tut::UsageError("N must be at least the number of processes");

  ncclUniqueId id;
  if (rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  setenv("NCCL_NVLS_ENABLE", "0", 0);  // NVLink multicast stays off on shared machines

  const PoissonProblem problem = radiator_problem(N, 11);
  std::vector<double> u = problem.u0;
  SolveOptions options;
  options.max_iterations = iterations;
  options.parts = size;
  RowBlocks grid(problem, u, options, rank);  // block `rank` alone, on this process's GPU
  const int first_row = grid.held()[0].first_row, rows = grid.held()[0].rows;
  ncclComm_t comm = nullptr;
  NCCL_CHECK(ncclCommInitRank(&comm, size, id, rank));
  const SolveResult result = nccl_iterate(grid, {comm}, u, iterations);
  ncclCommDestroy(comm);

  // Gather every rank's rows into rank 0's field.
  const int w = N + 2;
  std::vector<int> counts(static_cast<size_t>(size)), displacements(static_cast<size_t>(size));
  const int mine = rows * w, offset = first_row * w;
  MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Gather(&offset, 1, MPI_INT, displacements.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<double> gathered = problem.u0;
  MPI_Gatherv(u.data() + offset, mine, MPI_DOUBLE, gathered.data(), counts.data(), displacements.data(), MPI_DOUBLE, 0,
              MPI_COMM_WORLD);
  double slowest = 0;
  MPI_Reduce(&result.seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

  int status = 0;
  if (rank == 0) {
    const double updates = double(N) * N * iterations;
    std::printf("nccl over MPI: %d processes, N = %d, %d iterations: %.4f s, %.2f Gupdates/s, %.0f GB/s at 24 B/update\n",
                size, N, iterations, slowest, updates / slowest / 1e9, 24 * updates / slowest / 1e9);
    if (check) {
      std::vector<double> single = problem.u0;
      SolveOptions o = options;
      tut::stage_named(poisson_stages(), "gpu2").code.solve(problem, single, o);
      const tut::ValidationReport r = tut::compare(gathered.data(), single.data(), problem.grid.extent(), {0.0, 0.0});
      std::printf(r.ok() ? "matches gpu2 bit for bit\n" : "differs from gpu2: %s\n", r.summary().c_str());
      status = r.ok() ? 0 : 1;
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status = 0;
  try {
    status = mpi_main(argc, argv, rank, size);
  } catch (...) {
    status = tut::exit_code_for_failure("jacobi_mpi");
  }
  MPI_Finalize();
  return status;
}
