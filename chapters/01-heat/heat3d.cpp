// heat3d: the chapter's driver and tour. Runs every stage (or the ones named) on one problem:
// first checks each against v0 on a smaller random field, then times it, and prints one
// table with the copy bandwidth measured in the same run as the ceiling.
//   build: meson compile -C build heat
//   run:   build/chapters/01-heat/heat3d                    the tour: 128^3 cells, 5000 steps
//          build/chapters/01-heat/heat3d --size 512 --stage v2,v4 --csv
//          build/chapters/01-heat/heat3d --check --size 64 --steps 100
#include <algorithm>
#include <climits>
#include <cstdio>
#include <iostream>

#include "ceilings.h"
#include "check.h"
#include "cli.h"
#include "device.h"
#include "heat.h"
#include "heat_run.h"
#include "report.h"
#include "timing.h"
#include "validate.h"

namespace {

const HeatStage& reference_stage() { return tut::stage_named(heat_stages(), "v0"); }

struct Options {
  int nx = 128, ny = 128, nz = 128, steps = 5000;
  int repeats = 5, cpu_steps = 20, seed = 2016;
  std::vector<const HeatStage*> stages = heat_stages();
  dim3 block{0, 0, 0};  // 0: each stage's own shape
  bool check = false;
  tut::Format format = tut::Format::human;
};

dim3 parse_block(const std::string& text) {
  unsigned x = 0, y = 0, z = 0;
  char sep1 = 0, sep2 = 0, rest = 0;
  const bool shaped = std::sscanf(text.c_str(), "%u%c%u%c%u%c", &x, &sep1, &y, &sep2, &z, &rest) == 5 &&
                      sep1 == 'x' && sep2 == 'x';
  if (!shaped || x < 1 || y < 1 || z < 1 || x > 1024 || y > 1024 || z > 64 || size_t(x) * y * z > 1024)
    throw tut::UsageError("--block must be XxYxZ with x, y <= 1024, z <= 64 and x*y*z <= 1024 threads, got '" + text + "'");
  return dim3(x, y, z);
}

// The variants the stages sweep, which --stage also accepts.
std::vector<const HeatStage*> variants_only() {
  const std::vector<const HeatStage*>& all = heat_stages_and_variants();
  return {all.begin() + heat_stages().size(), all.end()};
}

Options parse(int argc, const char* const* argv) {
  Options o;
  tut::Cli cli("heat3d", "3D heat diffusion, 7-point stencil, float: runs the chapter's stages on one problem,\n"
                       "checks each against v0, then times it against the measured copy bandwidth.");
  // At least 3 cells per axis: a boundary cell on each side and one interior cell to update.
  cli.add_int("nx", &o.nx, "cells along x (the fastest axis)", 3, INT_MAX);
  cli.add_int("ny", &o.ny, "cells along y", 3, 65535);
  cli.add_int("nz", &o.nz, "cells along z", 3, 65535);
  cli.add_value("size", "N", "shorthand for --nx N --ny N --nz N", "", [&](const std::string& t) {
    o.nx = o.ny = o.nz = int(tut::parse_integer("--size", t, 3, 65535));
  });
  cli.add_int("steps", &o.steps, "time steps per run; times are reported per this many steps", 1, 10000000);
  cli.add_value("stage", "LIST",
                "stages to run, comma-separated (" + tut::stage_names(heat_stages()) + "; and the variants " +
                    tut::stage_names(variants_only()) + ")",
                "all", [&](const std::string& t) {
                  o.stages = tut::parse_stage_list("--stage", t, heat_stages_and_variants());
                });
  cli.add_value("block", "XxYxZ", "block shape for every GPU stage instead of its own, e.g. 64x8x1",
                "each stage's own", [&](const std::string& t) { o.block = parse_block(t); });
  cli.add_int("repeats", &o.repeats, "timed runs per stage; the median is reported", 1, 1000);
  cli.add_int("cpu-steps", &o.cpu_steps, "steps per timed run of a CPU stage, scaled up to --steps", 1, 10000000);
  cli.add_int("seed", &o.seed, "seed of the random initial field", 0, INT_MAX);
  cli.add_flag("check", &o.check, "only validate: run every stage at the full size and steps, compare with v0, no timing");
  cli.add_format(&o.format);
  cli.parse(argc, argv);
  const bool any_gpu_stage = std::any_of(o.stages.begin(), o.stages.end(), [](const HeatStage* s) { return s->on_device(); });
  if (o.block.x && !any_gpu_stage)
    throw tut::UsageError("--block applies to GPU stages, and none is among --stage");
  if (o.check && std::all_of(o.stages.begin(), o.stages.end(), [](const HeatStage* s) { return s == &reference_stage(); }))
    throw tut::UsageError("--check compares stages with v0, the reference: name another stage to check");
  if (o.block.x)
    for (const HeatStage* s : o.stages) {
      if (!s->on_device()) continue;
      const BlockLimits& fits = s->code.limits;
      if (o.block.x * o.block.y * o.block.z > fits.most_threads)
        throw tut::UsageError("stage " + std::string(s->name) + " is compiled for blocks of at most " +
                              std::to_string(fits.most_threads) + " threads (it keeps many values in registers), got --block " +
                              shape_text(o.block));
    }
  if (size_t(o.nx) * o.ny * o.nz > size_t(INT_MAX))
    throw tut::UsageError("the grid has " + std::to_string(size_t(o.nx) * o.ny * o.nz) +
                          " cells; the kernels index with 32-bit ints, so at most " + std::to_string(INT_MAX));
  return o;
}

std::string dims(const HeatGrid& g) {
  return std::to_string(g.nx) + " x " + std::to_string(g.ny) + " x " + std::to_string(g.nz);
}

dim3 block_of(const HeatStage& s, const Options& o) { return o.block.x ? o.block : s.code.block; }

std::string block_text(const HeatStage& s, const Options& o) { return s.on_device() ? shape_text(block_of(s, o)) : "-"; }

std::string tolerance_text() {
  char text[64];
  std::snprintf(text, sizeof text, "|x - v0| <= %g + %g |v0|", kHeatAtol, kHeatRtol);
  return text;
}

struct Check {
  bool ok = true, is_reference = false;
  tut::ValidationReport report;
  const char* verdict() const { return is_reference ? "ref" : ok ? "ok" : "FAIL"; }
};

// The field the stages are checked on: the whole problem with --check, else a small one (the
// tour checks each stage before it times it).
struct CheckProblem {
  HeatGrid grid;
  int steps;
};

CheckProblem check_problem(const Options& o) {
  if (o.check) return {{o.nx, o.ny, o.nz}, o.steps};
  return {{std::min(o.nx, 61), std::min(o.ny, 43), std::min(o.nz, 29)}, std::min(o.steps, 10)};
}

// A stage's result against v0's, from the same random field.
Check compare_with_v0(const HeatStage& s, const std::vector<float>& result, const std::vector<float>& reference,
                      const CheckProblem& p) {
  Check c;
  c.report = tut::compare(result.data(), reference.data(), {size_t(p.grid.nx), size_t(p.grid.ny), size_t(p.grid.nz)},
                          {kHeatAtol, kHeatRtol});
  c.ok = c.report.ok();
  if (!c.ok)
    std::cerr << "heat3d: stage " << s.name << " does not match v0 on a random " << dims(p.grid) << " field after "
              << p.steps << " steps (edit " << s.source << "): " << c.report.summary() << "\n";
  return c;
}

int print_checks(const std::vector<const HeatStage*>& stages, const std::vector<Check>& checks, const CheckProblem& p,
                 const Options& o) {
  // The errors are text, "1.23e-07": read by people, as the verdict is.
  tut::Table table({{"stage", "stage", ""}, {"check", "matches v0", ""}, {"mismatches", "mismatches", "", "%.0f"},
                    {"max_abs_err", "max abs err", ""}, {"max_rel_err", "max rel err", ""}});
  const auto scientific = [](double v) { return tut::Cell::num(v, "%.2e").text; };
  table.add_note("problem", "random " + dims(p.grid) + " field, " + std::to_string(p.steps) + " steps, float");
  table.add_note("tolerance", tolerance_text() + " per cell");
  bool all_ok = true;
  for (size_t i = 0; i < stages.size(); ++i) {
    const tut::ValidationReport& r = checks[i].report;
    tut::Table::Row row = table.add_row().set("stage", stages[i]->name).set("check", checks[i].verdict());
    if (!checks[i].is_reference)
      row.set("mismatches", double(r.mismatches))
          .set("max_abs_err", scientific(r.max_abs_err))
          .set("max_rel_err", scientific(r.max_rel_err));
    all_ok = all_ok && checks[i].ok;
  }
  table.print(std::cout, o.format);
  return all_ok ? 0 : 1;
}

// Median time of `batch` steps of a stage on the full field, after one untimed warm-up.
tut::TimingStats time_stage(const HeatStage& s, const HeatGrid& grid, const Options& o,
                            const std::vector<float>& initial, int batch) {
  const tut::Range range(std::string(s.name) + ": timed");
  const dim3 block = block_of(s, o);
  if (!s.on_device()) {
    std::vector<float> a = initial, b = initial;
    s.code.run(grid, kHeatCoeff, a.data(), b.data(), 1, block, nullptr);
    tut::HostTimer timer;
    for (int r = 0; r < o.repeats; ++r) {
      timer.start();
      s.code.run(grid, kHeatCoeff, a.data(), b.data(), batch, block, nullptr);
      timer.stop();
    }
    return timer.stats();
  }
  tut::DeviceBuffer<float> a(initial.size()), b(initial.size());
  a.upload(initial.data());
  b.upload(initial.data());
  const tut::Stream stream;
  s.code.run(grid, kHeatCoeff, a.get(), b.get(), std::min(batch, 100), block, stream);
  tut::DeviceTimer timer(stream);  // its first lap starts after the warm-up has ended
  for (int r = 0; r < o.repeats; ++r) {
    timer.start();
    s.code.run(grid, kHeatCoeff, a.get(), b.get(), batch, block, stream);
    timer.stop();
  }
  return timer.stats();
}

// The tour's table: its columns, the problem, and the ceilings measured in this run.
struct Tour {
  tut::Table table;
  double copy_gbps = 0;  // the copy ceiling, 0 without a GPU
  double v0_seconds = 0, previous_seconds = 0;
};

Tour start_tour(const HeatGrid& grid, const CheckProblem& checked, const Options& o, const tut::DeviceInfo& device) {
  Tour tour{tut::Table(tut::with_ceiling({{"stage", "stage", ""},
                                          {"what", "what", ""},
                                          {"block", "block", ""},
                                          {"timed_steps", "timed steps", "", "%.0f"},
                                          {"time_s", "time per " + std::to_string(o.steps) + " steps", "s", "%.4f"},
                                          {"min_s", "min", "s", "%.4f"},
                                          {"max_s", "max", "s", "%.4f"},
                                          {"speedup_prev", "vs prev", "x", "%.2f"},
                                          {"speedup_v0", "vs v0", "x", "%.1f"},
                                          {"gcells_per_s", "rate", "GCells/s", "%.2f"},
                                          {"gb_per_s", "at 8 B/update", "GB/s", "%.1f"},
                                          {"pct_copy", "of copy", "%", "%.1f"},
                                          {"check", "check", ""}}))};
  tut::Table& table = tour.table;
  const size_t field_bytes = grid.cells() * sizeof(float);
  table.add_note("problem", dims(grid) + " cells, float, " + std::to_string(o.steps) + " steps; " +
                                std::to_string(grid.interior_cells()) + " interior cells updated per step");
  table.add_note("device", device.usable ? device.describe() : "none (" + device.why_not + ")");
  if (device.usable) {
    tour.copy_gbps = tut::note_copy_ceiling(table);
    const double at_size = tut::measure_copy_bandwidth(field_bytes).gb_per_s;
    const double launch_us = tut::measure_empty_launch_us(std::min(o.steps, 5000));
    char text[256];
    std::snprintf(text, sizeof text, "%.0f GB/s for a copy of one field, %s (L2 cache: %s)", at_size,
                  tut::format_bytes(double(field_bytes)).c_str(),
                  tut::format_bytes(double(device.props.l2CacheSize)).c_str());
    table.add_note("copy at field size", text);
    // What a kernel's own loads and stores reach, by width: the ceiling a one-step stencil can hope for.
    const size_t kernel_copy_bytes = size_t(512) << 20;
    std::snprintf(text, sizeof text, "%.0f GB/s with one float per thread, %.0f GB/s with one float4 (%s)",
                  tut::measure_kernel_copy_bandwidth(kernel_copy_bytes, 1).gb_per_s,
                  tut::measure_kernel_copy_bandwidth(kernel_copy_bytes, 4).gb_per_s,
                  tut::format_bytes(double(kernel_copy_bytes)).c_str());
    table.add_note("copy by a kernel", text);
    std::snprintf(text, sizeof text, "%.2f us per empty-kernel launch, %.1f ms per %d launches", launch_us,
                  launch_us * o.steps / 1e3, o.steps);
    table.add_note("launch floor", text);
    std::snprintf(text, sizeof text, "%.2f us per grid.sync() of %d blocks of 1024 threads (a cooperative kernel, one block per SM)",
                  tut::measure_grid_barrier_us(1024), device.props.multiProcessorCount);
    table.add_note("grid barrier", text);
  }
  table.add_note("validation", "each stage against v0 on a random " + dims(checked.grid) + " field, " +
                                   std::to_string(checked.steps) + " steps, " + tolerance_text());
  table.add_note("timing", "median of " + std::to_string(o.repeats) + " runs after a warm-up; GPU stages run all " +
                               std::to_string(o.steps) + " steps (CUDA events), CPU stages " +
                               std::to_string(std::min(o.cpu_steps, o.steps)) + " steps (steady clock), scaled");
  return tour;
}

// Steps a stage is timed for: all of them on the GPU, --cpu-steps on the CPU (then scaled).
int timed_steps(const HeatStage& s, const Options& o) { return s.on_device() ? o.steps : std::min(o.cpu_steps, o.steps); }

// A stage's row: its check, and where it passed, its time over `batch` steps scaled to all of them.
void add_row(Tour& tour, const HeatStage& s, const Check& check, const tut::TimingStats* t, const HeatGrid& grid,
             const Options& o) {
  tut::Table::Row row = tour.table.add_row().set("stage", s.name).set("what", s.idea).set("block", block_text(s, o));
  row.set("check", check.verdict());
  if (!t) return;  // not timed: the row says FAIL
  const int batch = timed_steps(s, o);
  const double scale = double(o.steps) / batch / 1e3;  // ms per batch -> s per o.steps steps
  const double seconds = t->median_ms * scale;
  const double cells_per_s = double(grid.interior_cells()) * o.steps / seconds;
  const double gbps = 8.0 * cells_per_s / 1e9;
  row.set("timed_steps", batch).set("time_s", seconds).set("min_s", t->min_ms * scale).set("max_s", t->max_ms * scale);
  row.set("gcells_per_s", cells_per_s / 1e9).set("gb_per_s", gbps);
  if (tour.previous_seconds > 0) row.set("speedup_prev", tour.previous_seconds / seconds);
  if (tour.v0_seconds > 0) row.set("speedup_v0", tour.v0_seconds / seconds);
  if (tour.copy_gbps > 0) row.set("pct_copy", 100.0 * gbps / tour.copy_gbps).set_ceiling("copy", gbps / tour.copy_gbps);
  if (&s == &reference_stage()) tour.v0_seconds = seconds;
  tour.previous_seconds = seconds;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  const HeatGrid grid{o.nx, o.ny, o.nz};
  // The initial field, the reference's result, a stage's result and a working copy.
  tut::require_host_memory(4 * grid.cells() * sizeof(float), "a " + dims(grid) + " field (four copies on the host)");
  const tut::DeviceInfo device = tut::find_device();
  tut::require_device_unless_cpu_stages(o.stages, device);
  std::vector<const HeatStage*> stages;
  std::string skipped;
  for (const HeatStage* s : o.stages) {
    if (s->on_device() && !device.usable)
      skipped += std::string(skipped.empty() ? "" : ", ") + s->name;
    else
      stages.push_back(s);
  }
  if (!skipped.empty()) std::cerr << "heat3d: GPU stages " << skipped << " not run: " << device.why_not << "\n";
  if (device.usable && std::any_of(stages.begin(), stages.end(), [](const HeatStage* s) { return s->on_device(); }))
    tut::require_device_memory(2 * grid.cells() * sizeof(float), "a " + dims(grid) + " field (two buffers)");

  // Every stage against v0, from one random field. (run_stage, the stage's run and its kernel are
  // the whole path from here to the GPU: the README's frames from main() to a kernel.)
  const CheckProblem checked = check_problem(o);
  const std::vector<float> check_field = random_field(checked.grid, uint64_t(o.seed));
  const std::vector<float> reference = run_stage(reference_stage(), checked.grid, {}, check_field, checked.steps);
  std::vector<Check> checks;
  for (const HeatStage* s : stages) {
    if (s == &reference_stage()) {
      checks.push_back({true, true, {}});
      continue;
    }
    const tut::Range range(std::string(s->name) + ": checked");
    checks.push_back(compare_with_v0(*s, run_stage(*s, checked.grid, block_of(*s, o), check_field, checked.steps),
                                     reference, checked));
  }
  if (o.check) return print_checks(stages, checks, checked, o);

  // The tour: each stage that passed, timed on the full problem, in one table with the ceilings.
  Tour tour = start_tour(grid, checked, o, device);
  const std::vector<float> field = random_field(grid, uint64_t(o.seed) + 1);
  bool all_ok = true;
  for (size_t i = 0; i < stages.size(); ++i) {
    all_ok = all_ok && checks[i].ok;
    if (!checks[i].ok) {
      add_row(tour, *stages[i], checks[i], nullptr, grid, o);
      continue;
    }
    const tut::TimingStats t = time_stage(*stages[i], grid, o, field, timed_steps(*stages[i], o));
    add_row(tour, *stages[i], checks[i], &t, grid, o);
  }
  tour.table.print(std::cout, o.format);
  return all_ok ? 0 : 1;
} catch (...) {
  return tut::exit_code_for_failure("heat3d");
}
