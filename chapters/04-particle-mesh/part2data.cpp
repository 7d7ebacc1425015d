// part2data: the chapter's first program. Bins random particles on the mesh with every stage,
// checks each against the cpu stage, and prints one of two tables:
//   default      the kernels: time, particles/s, GB/s at 16 B per particle, % of the copy
//                bandwidth measured in the same run;
//   --transfers  the slides' question: the GPU stages with the cost of getting the data there
//                and back (allocation, copies, free), from pageable memory, from pinned memory,
//                and from pinned memory in pieces on several streams.
//   build: meson compile -C build particle-mesh
//   run:   build/chapters/04-particle-mesh/part2data
//          build/chapters/04-particle-mesh/part2data --transfers --streams 4 --chunks 16 --csv
#include <algorithm>
#include <climits>
#include <iostream>

#include "check.h"
#include "part2data_offload.h"
#include "pm_driver.h"
#include "timing.h"
#include "validate.h"

namespace {

struct Options {
  int np = 1 << 26, N = 128, repeats = 10, cpu_repeats = 3, seed = 2010, streams = 4, chunks = 16;
  unsigned block = 0;  // 0: each stage's own
  bool transfers = false;
  std::vector<const Part2DataStage*> stages = part2data_stages();
  tut::Format format = tut::Format::human;
};

Options parse(int argc, const char* const* argv) {
  Options o;
  int block = 0;
  tut::Cli cli("part2data", "Particles to mesh cells, float positions (x, y, z per particle): runs the chapter's\n"
                            "stages, checks each against the cpu stage, and times it.");
  cli.add_int("particles", &o.np, "number of particles", 1, kMaxParticles);
  cli.add_int("mesh", &o.N, "cells per side of the mesh; dx = 1 / mesh, positions in [0, 1)", 1, kMaxMeshSide);
  cli.add_value("stage", "LIST", "stages, comma-separated (" + tut::stage_names(part2data_stages()) + ")", "all",
                [&](const std::string& t) { o.stages = tut::parse_stage_list("--stage", t, part2data_stages()); });
  cli.add_int("block", &block, "threads per block for every GPU stage (0: each stage's own, 256)", 0, 1024);
  cli.add_int("repeats", &o.repeats, "timed runs of a GPU stage; the median is reported", 1, 1000);
  cli.add_int("cpu-repeats", &o.cpu_repeats, "timed runs of a CPU stage", 1, 1000);
  cli.add_flag("transfers", &o.transfers, "print the table of the cost of transfers instead of the kernels'");
  cli.add_int("streams", &o.streams, "--transfers: streams the pieces are spread over", 1, 64);
  cli.add_int("chunks", &o.chunks, "--transfers: pieces the particles are cut into", 1, 4096);
  cli.add_int("seed", &o.seed, "seed of the random positions", 0, INT_MAX);
  cli.add_format(&o.format);
  cli.parse(argc, argv);
  o.block = unsigned(block);
  const auto given = [&](const std::string& name) {
    return std::any_of(argv + 1, argv + argc, [&](const char* a) {
      const std::string arg = a;
      return arg == name || arg.rfind(name + "=", 0) == 0;
    });
  };
  for (const char* name : {"--streams", "--chunks"})
    if (!o.transfers && given(name)) throw tut::UsageError(std::string(name) + " applies to --transfers, which is not given");
  return o;
}

std::string check_text(bool ok) { return ok ? "ok" : "FAIL"; }

// cpu: the reference every stage is checked against, and the sequential time of both tables.
const Part2DataStage& reference_stage() { return tut::stage_named(part2data_stages(), "cpu"); }

// Compares with the reference; a mismatch is reported on stderr with the file to edit.
bool matches(const Part2DataStage& s, const int* got, const std::vector<int>& want, const char* how) {
  const tut::Range range(std::string(s.name) + ": checked " + how);
  const tut::ValidationReport r = tut::compare(got, want.data(), particles_extent(want.size()), {0, 0});
  if (!r.ok())
    std::cerr << "part2data: stage " << s.name << " " << how << " differs from cpu (edit " << s.source
              << "): " << r.summary() << "\n";
  return r.ok();
}

// -1 everywhere, before every run that is checked: a cell a stage never writes cannot match.
void poison_cells(int* data, int np) { std::fill(data, data + np, -1); }

unsigned block_of(const Part2DataStage& s, const Options& o) { return o.block ? o.block : s.code.block; }

tut::TimingStats time_kernel(const Part2DataStage& s, const Mesh& m, const Options& o,
                             const tut::DeviceBuffer<float>& pos, tut::DeviceBuffer<int>& data) {
  const tut::Range range(std::string(s.name) + ": timed");
  const int np = int(data.size());
  for (int w = 0; w < 2; ++w) s.code.on_device(m, np, pos.get(), data.get(), block_of(s, o), nullptr);  // warm-up
  tut::DeviceTimer timer(nullptr);
  for (int r = 0; r < o.repeats; ++r) {
    timer.start();
    s.code.on_device(m, np, pos.get(), data.get(), block_of(s, o), nullptr);
    timer.stop();
  }
  return timer.stats();
}

// The kernel table's columns and notes, with the copy ceiling of this run (0 without a GPU).
tut::Table kernel_table(const Options& o, const Mesh& m, const tut::DeviceInfo& device, double& copy_gbps) {
  tut::Table table(tut::with_ceiling({{"stage", "stage", ""}, {"what", "what", ""}, {"block", "block", "", "%.0f"},
                    {"time_ms", "time", "ms", "%.4f"}, {"min_ms", "min", "ms", "%.4f"}, {"max_ms", "max", "ms", "%.4f"},
                    {"gparticles_per_s", "rate", "Gparticles/s", "%.3f"}, {"gb_per_s", "at 16 B/particle", "GB/s", "%.0f"},
                    {"pct_copy", "of copy", "%", "%.1f"}, {"speedup_cpu", "vs cpu", "x", "%.1f"}, {"check", "check", ""}}));
  table.add_note("problem", std::to_string(o.np) + " particles, mesh " + std::to_string(m.N) + "^3, 12 B read + 4 B written per particle");
  copy_gbps = note_device_and_ceiling(table, device);
  table.add_note("timing", "median of " + std::to_string(o.repeats) + " runs (GPU, CUDA events, after 2 warm-ups) or " +
                               std::to_string(o.cpu_repeats) + " (CPU, steady clock, after 1)");
  table.add_note("validation", "every stage's cells equal the cpu stage's, exactly");
  return table;
}

// A stage's row of the kernel table: its time t, against the cpu stage's and the copy ceiling.
void add_kernel_row(tut::Table& table, const Part2DataStage& s, const Options& o, const tut::TimingStats& t,
                    double cpu_ms, double copy_gbps, bool ok) {
  const double rate = o.np / (t.median_ms * 1e-3);
  const double gbps = 16.0 * rate / 1e9;
  tut::Table::Row row = table.add_row().set("stage", s.name).set("what", s.idea);
  row.set("time_ms", t.median_ms).set("min_ms", t.min_ms).set("max_ms", t.max_ms).set("gparticles_per_s", rate / 1e9);
  row.set("gb_per_s", gbps).set("speedup_cpu", cpu_ms / t.median_ms);
  row.set("check", &s == &reference_stage() ? kReferenceNotChecked : check_text(ok));
  if (s.on_device()) row.set("block", block_of(s, o));
  if (copy_gbps > 0) row.set("pct_copy", 100 * gbps / copy_gbps).set_ceiling("copy", gbps / copy_gbps);
}

double copy_rate_gbps(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  const tut::TimingStats t =
      tut::time_device([&] { CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, nullptr)); }, nullptr, 1, 5);
  return double(bytes) / (t.median_ms * 1e-3) / 1e9;
}

int run_transfers(const Options& o, const Mesh& m, const std::vector<float>& pos, const std::vector<int>& reference,
                  const tut::TimingStats& cpu, const tut::DeviceInfo& device) {
  const double cpu_ms = cpu.median_ms;
  tut::Table table({{"stage", "stage", ""}, {"sequential_ms", "sequential", "ms", "%.2f"},
                    {"kernel_ms", "kernel only", "ms", "%.3f"}, {"kernel_x", "x", "x", "%.1f"},
                    {"plain_ms", "with transfers", "ms", "%.2f"}, {"plain_x", "x", "x", "%.2f"},
                    {"pinned_ms", "pinned", "ms", "%.2f"}, {"pinned_x", "x", "x", "%.2f"},
                    {"streamed_ms", "pinned+streams", "ms", "%.2f"}, {"streamed_x", "x", "x", "%.2f"},
                    {"possible_plain", "still possible (plain)", "x", "%.1f"},
                    {"possible_streamed", "still possible (streams)", "x", "%.1f"}, {"check", "check", ""}});
  table.add_note("problem", std::to_string(o.np) + " particles (" + tut::format_bytes(12.0 * o.np) + " in, " +
                                tut::format_bytes(4.0 * o.np) + " out), mesh " + std::to_string(m.N) + "^3");
  note_device_and_ceiling(table, device);
  table.add_note("with transfers", "cudaMalloc both arrays, copy in, kernel, copy out, cudaFree both; pinned host "
                                   "arrays are allocated once, outside the timing");
  table.add_note("streams", std::to_string(o.chunks) + " pieces over " + std::to_string(o.streams) + " streams");
  table.add_note("x", "speed-up over the sequential cpu stage; still possible = that time / kernel-only time");
  table.add_note("timing", "median of " + std::to_string(o.repeats) + " runs after a warm-up, CUDA events");

  tut::PinnedBuffer<float> pinned_pos(pos.size());
  tut::PinnedBuffer<int> pinned_data(size_t(o.np));
  std::copy(pos.begin(), pos.end(), pinned_pos.get());
  std::vector<int> pageable_data(size_t(o.np));
  std::vector<cudaStream_t> streams(size_t(o.streams));
  for (cudaStream_t& s : streams) CUDA_CHECK(cudaStreamCreate(&s));
  {
    tut::DeviceBuffer<float> d_pos(pos.size());
    tut::DeviceBuffer<int> d_data{size_t(o.np)};
    const double h2d = copy_rate_gbps(d_pos.get(), pinned_pos.get(), d_pos.bytes(), cudaMemcpyHostToDevice);
    const double d2h = copy_rate_gbps(pinned_data.get(), d_data.get(), d_data.bytes(), cudaMemcpyDeviceToHost);
    table.add_note("pinned copies", fixed(h2d, 1) + " GB/s host to device, " + fixed(d2h, 1) +
                                        " GB/s device to host (one copy of each array, this run)");
  }
  bool all_ok = true;
  for (const Part2DataStage* s : o.stages) {
    if (!s->on_device()) continue;
    bool ok = true;
    // The median time of the whole offload into poisoned host cells, which are then checked.
    auto offload = [&](const float* host_pos, int* host_data, const std::vector<cudaStream_t>& on, const char* how) {
      poison_cells(host_data, o.np);
      const tut::Range range(std::string(s->name) + ": timed " + how);
      const tut::TimingStats t = time_offload(*s, block_of(*s, o), m, o.np, host_pos, host_data, on, o.chunks, o.repeats);
      ok = matches(*s, host_data, reference, how) && ok;
      return t.median_ms;
    };
    tut::TimingStats kernel;
    {
      tut::DeviceBuffer<float> d_pos(pos.size());
      tut::DeviceBuffer<int> d_data{size_t(o.np)};
      d_pos.upload(pos.data());
      kernel = time_kernel(*s, m, o, d_pos, d_data);
    }
    const double plain = offload(pos.data(), pageable_data.data(), {}, "with transfers from pageable memory");
    const double pinned = offload(pinned_pos.get(), pinned_data.get(), {}, "from pinned memory");
    const double streamed = offload(pinned_pos.get(), pinned_data.get(), streams, "on streams");
    all_ok = all_ok && ok;
    table.add_row()
        .set("stage", s->name)
        .set("sequential_ms", cpu_ms)
        .set("kernel_ms", kernel.median_ms)
        .set("kernel_x", cpu_ms / kernel.median_ms)
        .set("plain_ms", plain)
        .set("plain_x", cpu_ms / plain)
        .set("pinned_ms", pinned)
        .set("pinned_x", cpu_ms / pinned)
        .set("streamed_ms", streamed)
        .set("streamed_x", cpu_ms / streamed)
        .set("possible_plain", plain / kernel.median_ms)
        .set("possible_streamed", streamed / kernel.median_ms)
        .set("check", check_text(ok));
  }
  for (cudaStream_t s : streams) CUDA_CHECK(cudaStreamDestroy(s));
  table.print(std::cout, o.format);
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  const Mesh m{o.N, 1.0f / float(o.N)};
  // The positions (12 B), the reference's cells and a stage's (4 B each), and pinned copies of
  // both for --transfers.
  tut::require_host_memory(size_t(o.np) * (o.transfers ? 40 : 20), std::to_string(o.np) + " particles");
  const tut::DeviceInfo device = tut::find_device();
  if (o.transfers && !device.usable) throw tut::NoDeviceError("the transfer table needs a GPU: " + device.why_not);
  tut::require_device_unless_cpu_stages(o.stages, device);
  if (device.usable) tut::require_device_memory(size_t(o.np) * 16 * 2, "the particles, their cells and a spare copy");
  const std::vector<float> pos = random_positions(m, o.np, uint64_t(o.seed));
  // The cpu stage is the reference and the sequential time of both tables.
  std::vector<int> reference(size_t(o.np));
  const tut::TimingStats cpu =
      tut::time_host(reference_stage().code.on_host, 1, o.cpu_repeats, m, o.np, pos.data(), reference.data());
  if (!device.usable) std::cerr << "part2data: no GPU, so only the CPU stages run: " << device.why_not << "\n";
  if (o.transfers) return run_transfers(o, m, pos, reference, cpu, device);

  // The kernel table: main checks and times each stage itself (README: the frames from main() to a kernel).
  double copy_gbps = 0;
  tut::Table table = kernel_table(o, m, device, copy_gbps);
  tut::DeviceBuffer<float> d_pos;
  tut::DeviceBuffer<int> d_data;
  if (device.usable) {
    d_pos = tut::DeviceBuffer<float>(pos.size());
    d_data = tut::DeviceBuffer<int>(size_t(o.np));
    d_pos.upload(pos.data());
  }
  bool all_ok = true;
  std::vector<int> host_data(size_t(o.np));
  for (const Part2DataStage* s : o.stages) {
    if (s->on_device() && !device.usable) continue;
    tut::TimingStats t = cpu;  // the reference: timed above, where it made the reference
    bool ok = true;
    if (s->on_device()) {
      CUDA_CHECK(cudaMemset(d_data.get(), 0xff, d_data.bytes()));  // every int -1
      t = time_kernel(*s, m, o, d_pos, d_data);
      d_data.download(host_data.data());
      ok = matches(*s, host_data.data(), reference, "on its own");
    } else if (s != &reference_stage()) {
      poison_cells(host_data.data(), o.np);
      {
        const tut::Range range(std::string(s->name) + ": timed");
        t = tut::time_host(s->code.on_host, 1, o.cpu_repeats, m, o.np, pos.data(), host_data.data());
      }
      ok = matches(*s, host_data.data(), reference, "on its own");
    }
    all_ok = all_ok && ok;
    add_kernel_row(table, *s, o, t, cpu.median_ms, copy_gbps, ok);
  }
  table.print(std::cout, o.format);
  return all_ok ? 0 : 1;
} catch (...) {
  return tut::exit_code_for_failure("part2data");
}
