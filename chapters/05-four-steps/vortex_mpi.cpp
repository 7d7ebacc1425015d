// vortex_mpi: the MPI stage, cpu5, on every process of an `mpirun` (built where Meson finds MPI).
// It checks cpu5 against cpu4, which each process also runs on its own threads, then times cpu5
// over the run; process 0 prints. Give each process its share of the cores (OMP_NUM_THREADS).
//   build: meson compile -C build four-steps
//   run:   mpirun -np 2 -x OMP_NUM_THREADS=8 build/chapters/05-four-steps/vortex_mpi --size 501 --steps 20
#include <mpi.h>
#include <omp.h>

#include <iostream>

#include "cli.h"
#include "four_steps.h"
#include "report.h"
#include "timing.h"

namespace {

struct Options {
  int n = 2001, steps = 100, check_steps = 3, repeats = 3;
  tut::Format format = tut::Format::human;
};

Options parse(int argc, const char* const* argv) {
  Options o;
  tut::Cli cli("vortex_mpi", "Yee's vortex with the MPI stage cpu5 (row blocks over the processes of an mpirun,\n"
                             "OpenMP threads in each), checked against cpu4 and timed in cell updates per second.");
  cli.add_int("size", &o.n, "cells per side", 4, 20000);
  cli.add_int("steps", &o.steps, "time steps of a timed run", 1, 100000);
  cli.add_int("check-steps", &o.check_steps, "time steps of the check against cpu4, before timing", 1, 1000);
  cli.add_int("repeats", &o.repeats, "timed runs; the median is reported", 1, 1000);
  cli.add_format(&o.format);
  cli.parse(argc, argv);
  return o;
}

}  // namespace

// The program on each process (`processes` of them): checks cpu5 against cpu4, then times it.
int mpi_main(int argc, char** argv, int rank, int processes) {
  const Options o = parse(argc, argv);
  if (!mpi_unavailable().empty()) throw tut::NoDeviceError(mpi_unavailable());
  Problem p;
  p.mesh = make_mesh(o.n, o.n);
  p.gas.mu_ref = 1e-3;
  const FourStepsStage& cpu4 = tut::stage_named(four_steps_stages(), "cpu4");
  const FourStepsStage& cpu5 = tut::stage_named(four_steps_stages(), "cpu5");

  const std::vector<double> perturbed = yee_vortex(p.mesh, 0, 0.01, 2017);
  std::vector<double> want = perturbed, got = perturbed;
  run_stage(cpu4, p, want, o.check_steps);
  run_stage(cpu5, p, got, o.check_steps);
  const tut::ValidationReport v = tut::compare(got.data(), want.data(), p.mesh.extent(), kStageTolerance);
  if (!v.ok() && rank == 0) std::cerr << "vortex_mpi: cpu5 differs from cpu4 (edit " << cpu5.source << "): " << v.summary() << "\n";

  StageRun run(cpu5, p);
  const std::vector<double> q0 = yee_vortex(p.mesh);
  run.reset(q0);
  run.advance(1);  // warm-up
  std::vector<double> samples;
  for (int r = 0; r < o.repeats; ++r) {
    run.reset(q0);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    run.advance(o.steps);
    MPI_Barrier(MPI_COMM_WORLD);
    samples.push_back((MPI_Wtime() - start) * 1e3);
  }
  const tut::TimingStats t = tut::summarize(samples);
  if (rank != 0) return v.ok() ? 0 : 1;
  tut::Table table({{"stage", "stage", ""}, {"processes", "processes", "", "%.0f"}, {"threads", "threads each", "", "%.0f"},
                    {"steps", "steps", "", "%.0f"}, {"time_s", "time", "s", "%.4f"}, {"min_s", "min", "s", "%.4f"},
                    {"max_s", "max", "s", "%.4f"}, {"mcups", "rate", "Mcell updates/s", "%.1f"},
                    {"s_per_100_steps", "per 100 steps", "s", "%.3f"}, {"check", "check", ""}});
  table.add_note("problem", std::to_string(o.n) + " x " + std::to_string(o.n) +
                                " cells, Yee's vortex, Navier-Stokes with viscosity 0.001 at T = 1, CFL 0.5, double");
  table.add_note("timing", "median of " + std::to_string(o.repeats) + " runs, from a barrier to a barrier (MPI_Wtime)");
  table.add_note("validation", "after " + std::to_string(o.check_steps) + " steps from a perturbed vortex, against cpu4: "
                               "|x - cpu4| <= 1e-10 + 1e-10 |cpu4|");
  const double rate = double(p.mesh.cells()) * o.steps / (t.median_ms * 1e-3);
  table.add_row().set("stage", cpu5.name).set("processes", processes).set("threads", omp_get_max_threads())
      .set("steps", o.steps).set("time_s", t.median_ms * 1e-3).set("min_s", t.min_ms * 1e-3).set("max_s", t.max_ms * 1e-3)
      .set("mcups", rate / 1e6).set("s_per_100_steps", double(p.mesh.cells()) * 100 / rate).set("check", v.ok() ? "ok" : "FAIL");
  table.print(std::cout, o.format);
  return v.ok() ? 0 : 1;
}

int main(int argc, char** argv) {
  int provided = 0, rank = 0, processes = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);  // only master threads call MPI
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &processes);
  int status = 0;
  try {
    status = mpi_main(argc, argv, rank, processes);
  } catch (...) {
    status = tut::exit_code_for_failure("vortex_mpi");
  }
  MPI_Finalize();
  return status;
}
