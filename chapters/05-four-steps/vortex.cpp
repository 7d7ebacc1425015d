// vortex: the chapter's program. Runs Yee's vortex through the ONERA guideline's steps on the
// CPU and the GPU, checks every stage against ref over a few steps, then times each over the
// run in cell updates per second (cells x time steps / seconds).
//   build: meson compile -C build four-steps
//   run:   build/chapters/05-four-steps/vortex --size 501 --steps 20        every stage, small
//          build/chapters/05-four-steps/vortex --stage cpu4,gpu4 --csv      2001^2, 100 steps
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "ceilings.h"
#include "check.h"
#include "cli.h"
#include "four_steps.h"
#include "report.h"
#include "timing.h"

namespace {

// Every stage but those over MPI processes (vortex_mpi runs them): the default of --stage.
std::vector<const FourStepsStage*> one_process_stages() {
  std::vector<const FourStepsStage*> stages;
  for (const FourStepsStage* s : four_steps_stages())
    if (s->side != tut::Side::mpi) stages.push_back(s);
  return stages;
}

struct Options {
  int nx = 2001, ny = 2001, steps = 100, ref_steps = 0, check_steps = 3, repeats = 5, cpu_repeats = 1;
  double viscosity = 1e-3;
  std::vector<const FourStepsStage*> stages = one_process_stages();
  bool variants = false;
  tut::Format format = tut::Format::human;
};

constexpr int kMaxSide = 46000;  // 4 planes of 46000^2 doubles: 68 GB, more than one GPU holds

void parse_size(const std::string& text, Options& o) {
  const size_t x = text.find('x');
  if (x == std::string::npos) {
    o.nx = o.ny = int(tut::parse_integer("--size", text, 4, kMaxSide));
  } else {
    try {
      o.nx = int(tut::parse_integer("--size", text.substr(0, x), 4, kMaxSide));
      o.ny = int(tut::parse_integer("--size", text.substr(x + 1), 4, kMaxSide));
    } catch (const tut::UsageError&) {  // quote the whole value, not the half that was wrong
      throw tut::UsageError("--size must be N or NXxNY, each from 4 to " + std::to_string(kMaxSide) + ", got '" +
                            text + "'");
    }
  }
}

Options parse(int argc, const char* const* argv) {
  Options o;
  tut::Cli cli("vortex", "Yee's vortex, 2D compressible Navier-Stokes, periodic, double: the ONERA guideline's\n"
                         "steps on the CPU and the GPU, each checked against ref and timed in cell updates per second.");
  cli.add_value("size", "N|NXxNY", "cells per side (4 to 46000: 46000^2 needs about 270 GB of host memory), or per row and column", "2001",
                [&](const std::string& t) { parse_size(t, o); });
  cli.add_int("steps", &o.steps, "time steps of a timed run", 1, 100000);
  cli.add_int("ref-steps", &o.ref_steps, "time steps of ref's timed run (0: --steps); ref is slow", 0, 100000);
  cli.add_int("check-steps", &o.check_steps, "time steps of the check against ref, before timing", 1, 1000);
  cli.add_value("stage", "LIST", "stages, comma-separated (" + tut::stage_names(four_steps_stages()) + "; cpu5 runs as one process: vortex_mpi runs it over several)", "all but cpu5",
                [&](const std::string& t) { o.stages = tut::parse_stage_list("--stage", t, four_steps_stages()); });
  cli.add_value("viscosity", "MU", "viscosity at T = 1 (0: Euler's equations), at most 1", "1e-3", [&](const std::string& t) {
    char* end = nullptr;
    o.viscosity = std::strtod(t.c_str(), &end);
    if (t.empty() || *end != '\0' || !(o.viscosity >= 0 && o.viscosity <= 1))
      throw tut::UsageError("--viscosity must be a number in [0, 1], got '" + t + "'");
  });
  cli.add_int("repeats", &o.repeats, "timed runs of a GPU stage; the median is reported", 1, 1000);
  cli.add_int("cpu-repeats", &o.cpu_repeats, "timed runs of a CPU stage", 1, 1000);
  cli.add_flag("variants", &o.variants, "also check and time the variants the stages sweep (gpu5's strip heights), each a row");
  cli.add_format(&o.format);
  cli.parse(argc, argv);
  if (o.ref_steps && std::find(o.stages.begin(), o.stages.end(), &tut::stage_named(four_steps_stages(), "ref")) == o.stages.end())
    throw tut::UsageError("--ref-steps times ref, which --stage leaves out");
  return o;
}

// `repeats` timed runs, each from the state reset to the vortex (not timed) through `steps` steps,
// on `timer`: CUDA events for a GPU stage, the steady clock for a CPU stage.
template <class Timer>
tut::TimingStats time_runs(Timer&& timer, StageRun& run, const std::vector<double>& q0, int steps, int repeats) {
  for (int r = 0; r < repeats; ++r) {
    run.reset(q0);
    timer.start();
    run.advance(steps);
    timer.stop();
  }
  return timer.stats();
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  Problem p;
  p.mesh = make_mesh(o.nx, o.ny);
  p.gas.mu_ref = o.viscosity;
  // the start, the perturbed start (and its noise, while it is made), ref's result
  tut::require_host_memory(4 * kVars * p.mesh.plane() * sizeof(double),
                           std::to_string(o.nx) + " x " + std::to_string(o.ny) + " cells (four states on the host)");
  const tut::DeviceInfo device = tut::find_device();
  tut::require_device_unless_cpu_stages(o.stages, device);
  if (!device.usable) std::cerr << "vortex: no GPU, so only the CPU stages run: " << device.why_not << "\n";
  // The acc stages need GCC's OpenACC offloading too: without it they are left out, as the GPU
  // stages are without a GPU.
  std::vector<const FourStepsStage*> stages = o.stages;
  const auto is_acc = [](const FourStepsStage* s) { return s->side == tut::Side::acc; };
  const std::string acc_missing = device.usable && std::any_of(stages.begin(), stages.end(), is_acc) ? openacc_unavailable() : "";
  if (!acc_missing.empty()) {
    if (std::all_of(stages.begin(), stages.end(), is_acc)) throw tut::NoDeviceError("the acc stages cannot run: " + acc_missing);
    std::cerr << "vortex: the OpenACC stages are left out: " << acc_missing << "\n";
    stages.erase(std::remove_if(stages.begin(), stages.end(), is_acc), stages.end());
  }
  // A variant runs as its stage does, under its own name, in rows after the stages.
  std::vector<FourStepsStage> variants;
  if (o.variants) {
    for (const FourStepsStage* s : stages)
      for (int k = 0; k < s->code.variant_count; ++k) variants.push_back(s->variant(k));
    for (const FourStepsStage& v : variants) stages.push_back(&v);
  }

  tut::Table table(tut::with_ceiling({{"stage", "stage", ""}, {"what", "what", ""}, {"steps", "steps", "", "%.0f"},
                    {"time_s", "time", "s", "%.4f"}, {"min_s", "min", "s", "%.4f"}, {"max_s", "max", "s", "%.4f"},
                    {"mcups", "rate", "Mcell updates/s", "%.1f"}, {"s_per_100_steps", "per 100 steps", "s", "%.3f"},
                    {"speedup_ref", "vs ref", "x", "%.1f"}, {"check", "check", ""}}));
  table.add_note("problem", std::to_string(o.nx) + " x " + std::to_string(o.ny) +
                                " cells, Yee's vortex, Navier-Stokes with viscosity " + std::to_string(o.viscosity) +
                                " at T = 1, CFL 0.5, double");
  table.add_note("device", device.usable ? device.describe() : "none (" + device.why_not + ")");
  double copy_gbps = 0;
  if (device.usable) {  // the roofline's two ceilings, measured in this run
    copy_gbps = tut::note_copy_ceiling(table);
    const tut::ArithmeticRate fma = tut::measure_fma_rate<double>();
    table.add_note("fp64 ceiling", std::to_string(int(fma.gflops)) + " GFLOP/s of FP64 FMA chains (median of 5)");
  }
  table.add_note("timing", "median of " + std::to_string(o.repeats) + " runs (GPU, CUDA events, after a warm-up run) or " +
                               std::to_string(o.cpu_repeats) + " (CPU, steady clock, after a one-step warm-up)");
  table.add_note("validation", "after " + std::to_string(o.check_steps) +
                                   " steps from a perturbed vortex, every cell of every stage against ref's: "
                                   "|x - ref| <= 1e-10 + 1e-10 |ref|");

  const std::vector<double> q0 = yee_vortex(p.mesh);
  const std::vector<double> perturbed = yee_vortex(p.mesh, 0, 0.01, 2017);
  const FourStepsStage& ref = tut::stage_named(four_steps_stages(), "ref");
  std::vector<double> want = perturbed;
  run_stage(ref, p, want, o.check_steps);

  bool all_ok = true;
  double ref_rate = 0;
  for (const FourStepsStage* s : stages) {
    if (s->on_device() && !device.usable) continue;
    StageRun run(*s, p);
    bool ok = true;
    if (s != &ref) {
      const tut::Range range(std::string(s->name) + ": checked");
      run.reset(perturbed);
      run.advance(o.check_steps);
      const tut::ValidationReport v = tut::compare(run.state().data(), want.data(), p.mesh.extent(), kStageTolerance);
      ok = v.ok();
      if (!ok) std::cerr << "vortex: stage " << s->name << " differs from ref (edit " << s->source << "): " << v.summary() << "\n";
    }
    all_ok = all_ok && ok;
    if (!ok) {  // a wrong stage's time means nothing, and a skeleton's can take minutes
      table.add_row().set("stage", s->name).set("what", s->idea).set("check", "FAIL (not timed)");
      continue;
    }
    const int steps = s == &ref && o.ref_steps ? o.ref_steps : o.steps;
    const int repeats = s->on_device() ? o.repeats : o.cpu_repeats;
    std::cerr << "vortex: timing " << s->name << ": " << steps << " steps, " << repeats  // progress: minutes on a CPU
              << (repeats == 1 ? " run\n" : " runs\n");
    // A warm-up run (GPU) or a one-step warm-up (CPU), then the timed runs, each in its NVTX
    // range: a profiler that takes "STAGE: warm-up" sees exactly one run of `steps` steps.
    {
      const tut::Range range(std::string(s->name) + ": warm-up");
      run.reset(q0);
      run.advance(s->on_device() ? steps : 1);
      run.time();  // waits for the warm-up
    }
    const tut::Range range(std::string(s->name) + ": timed");
    const tut::TimingStats t = s->on_device() ? time_runs(tut::DeviceTimer(nullptr), run, q0, steps, repeats)
                                              : time_runs(tut::HostTimer(), run, q0, steps, repeats);
    const double rate = double(p.mesh.cells()) * steps / (t.median_ms * 1e-3);
    if (s == &ref) ref_rate = rate;
    tut::Table::Row row = table.add_row().set("stage", s->name).set("what", s->idea).set("steps", steps);
    row.set("time_s", t.median_ms * 1e-3).set("min_s", t.min_ms * 1e-3).set("max_s", t.max_ms * 1e-3);
    row.set("mcups", rate / 1e6).set("s_per_100_steps", double(p.mesh.cells()) * 100 / rate);
    if (ref_rate > 0) row.set("speedup_ref", rate / ref_rate);
    if (s->on_device() && copy_gbps > 0)
      row.set_ceiling("copy at " + std::to_string(int(kLeastBytesPerCellUpdate)) + " B/cell update",
                      rate * kLeastBytesPerCellUpdate / 1e9 / copy_gbps);
    row.set("check", "ok");
  }
  table.print(std::cout, o.format);
  return all_ok ? 0 : 1;
} catch (...) {
  return tut::exit_code_for_failure("vortex");
}
