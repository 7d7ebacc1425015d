// force: the chapter's second program. Computes the gradient of a random potential along x, y
// and z with every stage that handles the axis, checks each against the cpu stage, and times
// it against the copy bandwidth measured in the same run (8 bytes per cell: one float read,
// one written).
//   build: meson compile -C build particle-mesh
//   run:   build/chapters/04-particle-mesh/force                      512^3, every stage and axis
//          build/chapters/04-particle-mesh/force --stage gpu1,gpu2 --sweep-strips --csv
#include <climits>
#include <iostream>

#include "check.h"
#include "pm_driver.h"
#include "random_inputs.h"
#include "timing.h"
#include "validate.h"

namespace {

struct Options {
  int N = 512, repeats = 10, cpu_repeats = 2, seed = 2010, strip = 32;
  bool sweep_strips = false;
  std::vector<const ForceStage*> stages = force_stages();
  std::vector<int> axes = {kAxisX, kAxisY, kAxisZ};
  tut::Format format = tut::Format::human;
};

std::vector<int> parse_axes(const std::string& text) {
  if (text == "all") return {kAxisX, kAxisY, kAxisZ};
  std::vector<int> axes;
  for (char c : text) {
    if (c == ',') continue;
    if (c < 'x' || c > 'z') throw tut::UsageError("--axis: expected x, y, z or a list of them, got '" + text + "'");
    axes.push_back(c - 'x');
  }
  if (axes.empty()) throw tut::UsageError("--axis: no axis named");
  return axes;
}

Options parse(int argc, const char* const* argv) {
  Options o;
  tut::Cli cli("force", "Forces on a periodic mesh, float: f = (pot[+1] - pot[-1]) / (2 dx) along x, y and z;\n"
                        "runs the chapter's stages, checks each against the cpu stage, and times it.");
  cli.add_value("size", "N", "cells per side, a power of two from 2 to 1024", "512", [&](const std::string& t) {
    o.N = int(tut::parse_integer("--size", t, 2, kMaxMeshSide));
    if (!is_power_of_two(o.N)) throw tut::UsageError("--size must be a power of two (indices wrap with & (N - 1)), got " + t);
  });
  cli.add_value("stage", "LIST", "stages, comma-separated (" + tut::stage_names(force_stages()) + ")", "all",
                [&](const std::string& t) { o.stages = tut::parse_stage_list("--stage", t, force_stages()); });
  cli.add_value("axis", "LIST", "axes, comma-separated (x, y, z)", "all",
                [&](const std::string& t) { o.axes = parse_axes(t); });
  cli.add_value("strip", "S", "cells per thread of the stages that walk strips (gpu2), a power of two up to 128",
                "32", [&](const std::string& t) {
    o.strip = int(tut::parse_integer("--strip", t, 1, 128));
    if (!is_power_of_two(o.strip)) throw tut::UsageError("--strip must be a power of two, got " + t);
  });
  cli.add_flag("sweep-strips", &o.sweep_strips,
               "run the stages that walk strips once per strip length 1, 2, 4 .. 128 (at most N)");
  cli.add_int("repeats", &o.repeats, "timed runs of a GPU stage; the median is reported", 1, 1000);
  cli.add_int("cpu-repeats", &o.cpu_repeats, "timed runs of a CPU stage", 1, 1000);
  cli.add_int("seed", &o.seed, "seed of the random potential", 0, INT_MAX);
  cli.add_format(&o.format);
  cli.parse(argc, argv);
  return o;
}

// |x - cpu| <= atol + rtol |cpu|: the stages do the same two float operations per cell, so
// anything beyond rounding is a bug. Values reach 1 / (2 dx) for a potential in [0, 1).
tut::Tolerance force_tolerance(const Mesh& m) { return {1e-6 / m.dx, 1e-6}; }

struct Run {
  const ForceStage* stage;
  int strip;  // 0 where the stage has none
};

std::vector<Run> runs_for(const Options& o, const Mesh& m) {
  std::vector<Run> runs;
  for (const ForceStage* s : o.stages) {
    if (s->code.strip && o.sweep_strips) {
      for (int strip = 1; strip <= 128 && strip <= m.N; strip *= 2) runs.push_back({s, strip});
    } else {
      const int strip = s->code.strip ? std::min(o.strip, m.N) : 0;
      runs.push_back({s, strip});
    }
  }
  return runs;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  const Mesh m{o.N, 1.0f / float(o.N)};
  const size_t cells = size_t(m.cells());
  const tut::DeviceInfo device = tut::find_device();
  tut::require_device_unless_cpu_stages(o.stages, device);
  if (device.usable) tut::require_device_memory(cells * 4 * 3, "the potential, one force component and a spare");
  if (!device.usable) std::cerr << "force: no GPU, so only the CPU stages run: " << device.why_not << "\n";

  tut::Table table(tut::with_ceiling({{"stage", "stage", ""}, {"axis", "axis", ""}, {"what", "what", ""}, {"strip", "strip", "", "%.0f"},
                    {"time_ms", "time", "ms", "%.4f"}, {"min_ms", "min", "ms", "%.4f"}, {"max_ms", "max", "ms", "%.4f"},
                    {"gcells_per_s", "rate", "GCells/s", "%.2f"}, {"gb_per_s", "at 8 B/cell", "GB/s", "%.0f"},
                    {"pct_copy", "of copy", "%", "%.1f"}, {"speedup_cpu", "vs cpu", "x", "%.1f"}, {"check", "check", ""}}));
  table.add_note("problem", std::to_string(m.N) + "^3 cells, float, random potential in [0, 1), dx = 1/" +
                                std::to_string(m.N));
  const double copy_gbps = note_device_and_ceiling(table, device);
  table.add_note("timing", "median of " + std::to_string(o.repeats) + " runs (GPU, CUDA events, after 2 warm-ups) or " +
                               std::to_string(o.cpu_repeats) + " (CPU, steady clock, after 1)");
  table.add_note("validation", "against the cpu stage, |x - cpu| <= 1e-6/dx + 1e-6 |cpu|");

  std::vector<float> pot(cells), f(cells);
  tut::fill_random(pot.data(), cells, uint64_t(o.seed));
  tut::DeviceBuffer<float> d_pot, d_f;
  if (device.usable) {
    d_pot = tut::DeviceBuffer<float>(cells);
    d_f = tut::DeviceBuffer<float>(cells);
    d_pot.upload(pot.data());
  }
  bool all_ok = true;
  const ForceStage& cpu_stage = tut::stage_named(force_stages(), "cpu");  // the reference and the baseline
  for (int axis : o.axes) {
    std::vector<float> reference(cells);
    const tut::TimingStats cpu =
        tut::time_host(cpu_stage.code.on_host, 1, o.cpu_repeats, m, axis, pot.data(), reference.data());
    for (const Run& r : runs_for(o, m)) {
      const ForceStage& s = *r.stage;
      if (!s.handles(axis) || (s.on_device() && !device.usable)) continue;
      const tut::Range range(std::string(s.name) + " " + axis_name(axis) + ": timed and checked");
      tut::TimingStats t = cpu;
      if (!s.on_device() && &s != &cpu_stage) {
        tut::poison(f.data(), cells);  // NaN: a cell never written fails
        t = tut::time_host(s.code.on_host, 1, o.cpu_repeats, m, axis, pot.data(), f.data());
      } else if (s.on_device()) {
        CUDA_CHECK(cudaMemset(d_f.get(), 0xff, d_f.bytes()));  // NaN: a cell never written fails
        t = tut::time_device(s.code.on_device, nullptr, 2, o.repeats, m, axis, d_pot.get(), d_f.get(), r.strip,
                             cudaStream_t(nullptr));
        d_f.download(f.data());
      }
      bool ok = true;
      if (&s != &cpu_stage) {
        const tut::ValidationReport v = tut::compare(f.data(), reference.data(), m.extent(), force_tolerance(m));
        ok = v.ok();
        if (!ok)
          std::cerr << "force: stage " << s.name << " (axis " << axis_name(axis) << ") differs from cpu (edit "
                    << s.source << "): " << v.summary() << "\n";
      }
      all_ok = all_ok && ok;
      const double rate = double(cells) / (t.median_ms * 1e-3);
      tut::Table::Row row = table.add_row().set("stage", s.name).set("axis", axis_name(axis)).set("what", s.idea);
      row.set("time_ms", t.median_ms).set("min_ms", t.min_ms).set("max_ms", t.max_ms);
      row.set("gcells_per_s", rate / 1e9).set("gb_per_s", 8 * rate / 1e9).set("speedup_cpu", cpu.median_ms / t.median_ms);
      row.set("check", &s == &cpu_stage ? kReferenceNotChecked : ok ? "ok" : "FAIL");
      if (r.strip) row.set("strip", r.strip);
      if (copy_gbps > 0) row.set("pct_copy", 800 * rate / 1e9 / copy_gbps).set_ceiling("copy", 8 * rate / 1e9 / copy_gbps);
    }
  }
  table.print(std::cout, o.format);
  return all_ok ? 0 : 1;
} catch (...) {
  return tut::exit_code_for_failure("force");
}
