// jacobi: the course's program, which the course calls poisson (here that is the chapter's
// name, its Meson suite and build target). Solves the radiator problem with one stage and
// prints one table: time, lattice updates per second, GB/s at 24 bytes per update, % of the copy
// bandwidth measured in the same run; the multi-GPU stages also run gpu2 on one GPU in the
// same run and report their speed-up and parallel efficiency over it.
//   usage: jacobi VERSION N iterations [tolerance] [--parts P] [--check-every K] [--depth D] [--pgm FILE] [--csv]
//   e.g.   build/chapters/03-poisson/jacobi gpu2 4096 1000
//          build/chapters/03-poisson/jacobi multi 16384 1000 --parts 4
//          build/chapters/03-poisson/jacobi gpu3 512 100000 1e-6 --pgm radiator.pgm
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "ceilings.h"
#include "check.h"
#include "cli.h"
#include "device.h"
#include "poisson.h"
#include "report.h"

namespace {

struct Options {
  const PoissonStage* stage = nullptr;
  int N = 0, iterations = 0, parts = 0, check_every = 100, depth = 0;
  bool check_every_given = false;
  double tolerance = 0;
  std::string pgm;
  tut::Format format = tut::Format::human;
};

std::string stage_names() { return tut::stage_names(poisson_stages()); }

Options parse(int argc, char** argv) {
  Options o;
  std::vector<const char*> positional, flags = {argv[0]};
  // Options (and the value after --parts, --check-every, --pgm, --depth) go to the option
  // parser; the rest, negative numbers included, are the positional arguments.
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    const bool option = arg.size() > 1 && arg[0] == '-' && !std::isdigit(static_cast<unsigned char>(arg[1]));
    (option ? flags : positional).push_back(argv[a]);
    const bool takes_value = arg == "--parts" || arg == "--check-every" || arg == "--pgm" || arg == "--depth";
    if (option && a + 1 < argc && takes_value) flags.push_back(argv[++a]);
  }
  tut::Cli cli("jacobi", "usage: jacobi VERSION N iterations [tolerance] [options]\n"
                          "Jacobi iterations for -laplace(u) = f on [-1,1]^2 (the course's radiator), double.\n"
                          "VERSION: " + stage_names() + "; N interior points per side; tolerance: stop once\n"
                          "||u_new - u||_2 < tolerance, checked every --check-every iterations (not for multi, nccl).");
  cli.add_value("parts", "N", "multi, nccl: row blocks, one per GPU", "one per visible GPU",
                [&](const std::string& text) { o.parts = int(tut::parse_integer("--parts", text, 1, 64)); });
  cli.add_value("check-every", "K", "iterations between two checks of the tolerance", "100", [&](const std::string& t) {
    o.check_every = int(tut::parse_integer("--check-every", t, 1, 1000000));
    o.check_every_given = true;
  });
  cli.add_value("depth", "D", "gpu4: iterations per pass over the field; gpu5: iterations between two trades of edges between its regions; 2, 4, 8 or 16", "the stage's own",
                [&](const std::string& t) {
                  o.depth = int(tut::parse_integer("--depth", t, 2, 16));
                  if (o.depth & (o.depth - 1)) throw tut::UsageError("--depth must be 2, 4, 8 or 16, got " + t);
                });
  cli.add_value("pgm", "FILE", "write the solution as a grey-level PGM image", "", [&](const std::string& t) {
    if (t.empty()) throw tut::UsageError("--pgm needs a file name");
    // Opened now, for appending (nothing is overwritten yet), so that an unwritable path stops
    // the program before the solve, not after it.
    if (!std::ofstream(t, std::ios::app)) throw tut::UsageError("--pgm: cannot write " + t);
    o.pgm = t;
  });
  cli.add_format(&o.format);
  cli.parse(int(flags.size()), flags.data());
  if (positional.size() < 3 || positional.size() > 4)
    throw tut::UsageError("expected VERSION N iterations [tolerance] (see --help)");
  o.stage = tut::find_stage(poisson_stages(), positional[0]);
  if (!o.stage) throw tut::UsageError("unknown VERSION '" + std::string(positional[0]) + "' (known: " + stage_names() + ")");
  o.N = int(tut::parse_integer("N", positional[1], 1, 46340));  // (N + 2)^2 stays within 32-bit indices
  o.iterations = int(tut::parse_integer("iterations", positional[2], 1, 100000000));
  if (positional.size() == 4) {
    char* end = nullptr;
    o.tolerance = std::strtod(positional[3], &end);
    if (*end != '\0' || !(o.tolerance > 0))
      throw tut::UsageError("tolerance must be a positive number, got '" + std::string(positional[3]) + "'");
    if (o.stage->multi_gpu())
      throw tut::UsageError(std::string(o.stage->name) + " runs a fixed number of iterations: drop the tolerance");
  }
  if (o.check_every_given && o.tolerance == 0)
    throw tut::UsageError("--check-every says how often to check the tolerance, and no tolerance is given");
  if (o.depth && !o.stage->code.default_depth)
    throw tut::UsageError("--depth sets how many iterations gpu4 and gpu5 fuse; " + std::string(o.stage->name) +
                          " does one iteration per pass");
  if (o.parts && !o.stage->multi_gpu())
    throw tut::UsageError("--parts splits the rows over GPUs for multi and nccl; " + std::string(o.stage->name) +
                          " runs on " + (o.stage->on_device() ? "one GPU" : "the CPU"));
  return o;
}

void write_pgm(const std::string& path, const PoissonGrid& g, const std::vector<double>& u) {
  const auto [lo, hi] = std::minmax_element(u.begin(), u.end());
  std::ofstream out(path, std::ios::binary);
  if (!out) throw tut::UsageError("cannot write " + path);
  out << "P5\n" << g.width() << " " << g.width() << "\n255\n";
  for (int r = g.width() - 1; r >= 0; --r)  // the top row of the image is y = 1
    for (int c = 0; c < g.width(); ++c) {
      const double v = (u[size_t(r) * g.width() + c] - *lo) / std::max(*hi - *lo, 1e-300);
      out.put(char(int(v * 255.0 + 0.5)));
    }
}

// A stage's run: the stage, its row blocks (multi-GPU stages), its depth (a fused stage: the one
// asked for, else its own at this size, chosen once), and what its solve reported.
struct Run {
  const PoissonStage* stage;
  int parts;
  int depth;
  SolveResult result;
};

SolveOptions solve_options(const Options& o, const Run& r) {
  SolveOptions so;
  so.max_iterations = o.iterations;
  so.tolerance = o.tolerance;
  so.check_every = o.check_every;
  so.parts = r.parts;
  so.depth = r.depth;
  return so;
}

// An untimed warm-up before a GPU stage's timed solve: module loading, clocks, peer access.
SolveOptions warm_up(SolveOptions so) {
  so.max_iterations = std::min(so.max_iterations, 10);
  so.tolerance = 0;
  return so;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  const size_t cells = size_t(o.N + 2) * (o.N + 2);  // the source, the initial field, the solution, a spare
  tut::require_host_memory(4 * cells * sizeof(double), "an N = " + std::to_string(o.N) + " grid (four fields on the host)");
  tut::DeviceInfo device;
  int gpus = 0;
  if (o.stage->on_device()) {  // before the host fields are made: gigabytes, at the sizes the lesson runs
    device = tut::require_device();
    CUDA_CHECK(cudaGetDeviceCount(&gpus));
    tut::require_device_memory(3 * cells * sizeof(double), "an N = " + std::to_string(o.N) + " grid (three fields)");
  }
  const PoissonProblem problem = radiator_problem(o.N);
  const int parts = o.parts ? o.parts : std::max(gpus, 1);
  const auto depth_of = [&](const PoissonStage& s) {
    return s.code.default_depth && !o.depth ? s.code.default_depth(o.N) : o.depth;
  };
  std::vector<Run> runs;
  if (o.stage->multi_gpu())  // the single-GPU stage in the same run, for speed-up and efficiency
    runs.push_back({&tut::stage_named(poisson_stages(), "gpu2"), 1, 0, {}});
  runs.push_back({o.stage, o.stage->multi_gpu() ? parts : 1, depth_of(*o.stage), {}});
  std::vector<double> u;
  for (Run& r : runs) {  // (main calls each stage's solve itself: README, the frames from main() to a kernel)
    u = problem.u0;
    const SolveOptions so = solve_options(o, r);
    const PoissonSolve solve = r.stage->code.solve_for(r.depth, o.N);
    if (r.stage->on_device()) {
      std::vector<double> scratch = problem.u0;
      solve(problem, scratch, warm_up(so));
    }
    const tut::Range range(std::string(r.stage->name) + ": timed");
    r.result = solve(problem, u, so);
  }

  const double copy_gbps = o.stage->on_device() ? tut::measure_copy_bandwidth(size_t(512) << 20).gb_per_s : 0;
  tut::Table table(tut::with_ceiling({{"stage", "stage", ""}, {"N", "N", "", "%.0f"}, {"gpus", "GPUs", "", "%.0f"},
                    {"iterations", "iterations", "", "%.0f"}, {"depth", "depth", "iterations", "%.0f"},
                    {"time_s", "time", "s", "%.4f"},
                    {"gupdates_per_s", "rate", "Gupdates/s", "%.3f"}, {"gb_per_s", "at 24 B/update", "GB/s", "%.1f"},
                    {"pct_copy", "of copy x GPUs", "%", "%.1f"}, {"speedup", "vs gpu2", "x", "%.2f"},
                    {"efficiency", "efficiency", "%", "%.1f"}, {"change_norm", "last change", ""}}));
  table.add_note("problem", "radiator, N = " + std::to_string(o.N) + " interior points per side, double");
  table.add_note("device", device.usable ? device.describe() + ", " + std::to_string(gpus) + " visible" : "CPU");
  // Every run has the same notes, so that CSVs of CPU and GPU runs share their columns.
  table.add_note("copy ceiling", copy_gbps > 0 ? std::to_string(int(copy_gbps)) + " GB/s per GPU, device-to-device, same run"
                                               : std::string("not measured (CPU stage)"));
  const double single_seconds = runs.size() > 1 ? runs[0].result.seconds : 0;
  for (const Run& r : runs) {
    const double updates = double(o.N) * o.N * r.result.iterations;
    const double gbps = 24.0 * updates / r.result.seconds / 1e9;
    const int used = r.stage->multi_gpu() ? std::min(r.parts, std::max(gpus, 1)) : (r.stage->on_device() ? 1 : 0);
    const double speedup = single_seconds > 0 ? single_seconds / r.result.seconds : 0;
    tut::Table::Row row = table.add_row();
    row.set("stage", r.stage->name + std::string(r.stage->multi_gpu() ? " x" + std::to_string(r.parts) : ""));
    row.set("N", o.N).set("gpus", used).set("iterations", r.result.iterations).set("time_s", r.result.seconds);
    if (r.depth) row.set("depth", r.depth);
    row.set("gupdates_per_s", updates / r.result.seconds / 1e9).set("gb_per_s", gbps);
    if (used && copy_gbps > 0)
      row.set("pct_copy", 100 * gbps / (copy_gbps * used)).set_ceiling("copy x GPUs", gbps / (copy_gbps * used));
    if (speedup > 0) row.set("speedup", speedup).set("efficiency", 100 * speedup / used);
    if (r.result.change_norm >= 0) {  // text, as the course prints it
      char norm[32];
      std::snprintf(norm, sizeof norm, "%.3e", r.result.change_norm);
      row.set("change_norm", norm);
    }
  }
  table.print(std::cout, o.format);
  if (o.format == tut::Format::human)
    for (const Run& r : runs)
      if (!r.result.layout.empty()) std::cout << r.stage->name << ": " << r.result.layout << "\n";
  if (!o.pgm.empty()) write_pgm(o.pgm, problem.grid, u);
  return 0;
} catch (...) {
  return tut::exit_code_for_failure("jacobi");
}
