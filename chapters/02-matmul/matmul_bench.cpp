// matmul_bench: every type over square sizes 16 .. 8192 (doubling) and a few non-square
// shapes, timed two ways: host to host through the course's matmult_TYPE (allocation and
// PCIe copies included, steady clock), and device only (the same kernel on data already on
// the GPU, CUDA events). Each result is checked against OpenBLAS before it is timed. The FP64
// FMA rate of chapter 00's `peak` is measured in the same run and noted with the results, beside
// the FP64 tensor cores' theoretical rate. Without a GPU it times the CPU types (nat, lib)
// host to host, says which types it left out and why, and measures no ceiling.
//   run: build/chapters/02-matmul/matmul_bench [--min-n 16] [--max-n 8192] [--types all] [--pinned-host] [--csv]
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "ceilings.h"
#include "check.h"
#include "cli.h"
#include "device.h"
#include "figures.h"
#include "matmul.h"
#include "random_inputs.h"
#include "timing.h"
#include "validate.h"

namespace {

struct Shape {
  int m, n, k;
};

// What the benchmark times: every type, then the variants the types sweep (gpu4's ROWS).
struct Timed {
  const char* name;
  MatmulHostCall host;  // the course function, timed host to host (nullptr for a variant)
  MatmulLaunch device;  // timed device only (nullptr for a CPU type)
  bool on_gpu;          // needs a GPU (every type but the CPU ones)
  MatmulPlanText plan = nullptr;  // what the type chose for a shape (gpu8)
};

std::vector<Timed> timed_types() {
  std::vector<Timed> timed;
  for (const MatmulStage* s : matmul_stages())
    timed.push_back({s->name, s->code.host, s->code.device, s->on_device(), s->code.plan});
  for (const MatmulVariant* v : matmul_variants()) timed.push_back({v->name, nullptr, v->launch, true});
  return timed;
}

// "all", or a comma-separated list of names from `known`: those, in the order of `known`.
std::vector<Timed> select_types(const std::string& list, const std::vector<Timed>& known) {
  if (list == "all") return known;
  const std::vector<std::string> wanted = tut::split_names("--types", list);
  std::string names;
  for (const Timed& t : known) names += (names.empty() ? "" : ",") + std::string(t.name);
  for (const std::string& w : wanted)
    if (std::none_of(known.begin(), known.end(), [&](const Timed& t) { return w == t.name; }))
      throw tut::UsageError("--types: unknown type '" + w + "' (known: " + names + ")");
  std::vector<Timed> chosen;
  for (const Timed& t : known)
    if (std::find(wanted.begin(), wanted.end(), t.name) != wanted.end()) chosen.push_back(t);
  return chosen;
}

// Timed calls per point: enough for about half a second, at least 2, after one warm-up.
int repeats_for(double seconds_per_call) { return std::clamp(int(0.5 / std::max(seconds_per_call, 1e-9)), 2, 20); }

bool close_to(const std::vector<double>& got, const std::vector<double>& want, int k) {
  // Inputs in [-1, 1): |sum of k products| <= k, so rounding error <= a small multiple of k eps.
  const double tolerance = 16.0 * k * 2.220446049250313e-16;
  return tut::compare(got.data(), want.data(), {got.size(), 1, 1}, {tolerance, 0.0}).ok();
}

// The caller's array page-locked for the copy engine while it lives (with --pinned-host).
class PageLocked {
 public:
  PageLocked(bool wanted, std::vector<double>& v) : data_(wanted ? v.data() : nullptr) {
    if (data_) CUDA_CHECK(cudaHostRegister(data_, v.size() * sizeof(double), cudaHostRegisterDefault));
  }
  ~PageLocked() {
    if (data_) cudaHostUnregister(data_);
  }
  PageLocked(const PageLocked&) = delete;
  PageLocked& operator=(const PageLocked&) = delete;

 private:
  void* data_;
};

}  // namespace

int main(int argc, char** argv) try {
  int min_n = 16, max_n = 8192, nat_max = 512, gpu1_max = 256;
  bool square_only = false, pinned_host = false;
  std::string type_list = "all";
  tut::Format format = tut::Format::human;
  tut::Cli cli("matmul_bench", "Every matmult type over square sizes 16 .. --max-n and some non-square shapes:\n"
                               "host-to-host (course interface) and device-only GFLOP/s.");
  cli.add_int("min-n", &min_n, "smallest square size (doubled up to --max-n)", 16, 16384);
  cli.add_int("max-n", &max_n, "largest square size", 16, 16384);
  cli.add_value("types", "LIST", "comma-separated types and variants to time (gpu5,gpu7_k16,...)", "all",
                [&](const std::string& t) { type_list = t; });
  cli.add_int("nat-max", &nat_max, "largest size for nat (one CPU core)", 1, 16384);
  cli.add_int("gpu1-max", &gpu1_max, "largest size for gpu1 (one GPU thread)", 1, 16384);
  cli.add_flag("square", &square_only, "square sizes only, without the non-square shapes");
  cli.add_flag("pinned-host", &pinned_host,
               "host arrays page-locked (cudaHostRegister): host to host at the pinned rate, no overlap");
  cli.add_format(&format);
  cli.parse(argc, argv);
  if (min_n > max_n) throw tut::UsageError("--min-n " + std::to_string(min_n) + " is above --max-n " + std::to_string(max_n));
  const std::vector<Timed> asked = select_types(type_list, timed_types());
  std::vector<Shape> shapes;
  for (int s = min_n; s <= max_n; s *= 2) shapes.push_back({s, s, s});
  for (const Shape& s : {Shape{1000, 3000, 500}, Shape{2017, 1031, 997}, Shape{4096, 4096, 64}, Shape{64, 4096, 4096}})
    if (std::max({s.m, s.n, s.k}) <= max_n && !square_only) shapes.push_back(s);
  // nat and gpu1 stop at their own largest size (one core, one thread: minutes beyond it).
  const auto runs_at = [&](const Timed& type, const Shape& sh) {
    const int largest = std::max({sh.m, sh.n, sh.k});
    const std::string name = type.name;
    return !((name == "nat" && largest > nat_max) || (name == "gpu1" && largest > gpu1_max));
  };
  const bool any_runs = std::any_of(shapes.begin(), shapes.end(), [&](const Shape& sh) {
    return std::any_of(asked.begin(), asked.end(), [&](const Timed& t) { return runs_at(t, sh); });
  });
  if (!any_runs)  // nat past --nat-max, say: an empty table would look like a success
    throw tut::UsageError("no type asked for runs at any size asked for (nat stops at --nat-max " +
                          std::to_string(nat_max) + ", gpu1 at --gpu1-max " + std::to_string(gpu1_max) + ")");

  // Without a GPU the CPU types still run; the GPU types (and the FP64 ceiling) are left out.
  const tut::DeviceInfo device = tut::find_device();
  std::vector<Timed> types;
  std::string skipped;
  for (const Timed& t : asked) {
    if (t.on_gpu && !device.usable)
      skipped += (skipped.empty() ? "" : ", ") + std::string(t.name);
    else
      types.push_back(t);
  }
  if (types.empty()) throw tut::NoDeviceError("the types asked for run on a GPU: " + device.why_not);
  if (!device.usable)
    std::cerr << "matmul_bench: no GPU, so only the CPU types run" << (skipped.empty() ? "" : " (not run: " + skipped + ")")
              << " and no FP64 ceiling is measured: " << device.why_not << "\n";

  tut::Table table(tut::with_ceiling({{"type", "type", ""}, {"m", "m", "", "%.0f"}, {"n", "n", "", "%.0f"}, {"k", "k", "", "%.0f"},
                    {"host_ms", "host to host", "ms", "%.3f"}, {"host_gflops", "host to host", "GFLOP/s", "%.2f"},
                    {"device_ms", "device only", "ms", "%.3f"}, {"device_gflops", "device only", "GFLOP/s", "%.2f"},
                    {"cpu_threads", "CPU threads", "", "%.0f"}, {"check", "matches lib", ""}, {"plan", "plan", ""}}));
  table.add_note("device", device.usable ? device.describe() : "none (" + device.why_not + ")");
  table.add_note("method", std::string("median after a warm-up call; host to host: matmult_TYPE with host pointers (steady "
                                       "clock), ") + (pinned_host && device.usable ? "page-locked" : "pageable") +
                               "; device only: the same kernel on device buffers (CUDA events)");
  cudaStream_t stream = nullptr;
  if (device.usable) {
    const tut::ArithmeticRate fma = tut::measure_fma_rate<double>();  // the FP64 units' ceiling, this run
    if (!fma.verified) throw std::runtime_error("the FP64 FMA kernel's result did not match its host check");
    table.add_note("fp64_fma_gflops", std::to_string(std::lround(fma.gflops)));
    // The FP64 tensor cores' rate from the clock and the SM count (chapter 00's figures).
    table.add_note("fp64_tensor_peak_gflops",
                   std::to_string(std::lround(tut::theoretical_figures(device.id).fp64_tensor_gflops)));
    CUDA_CHECK(cudaStreamCreate(&stream));
  }
  std::set<std::string> unable;  // types that said why they cannot run here (said once)
  bool all_ok = true;
  for (const Shape& sh : shapes) {
    // No reference product for a shape that no type runs at (nat alone, past --nat-max).
    if (std::none_of(types.begin(), types.end(), [&](const Timed& t) { return runs_at(t, sh); })) continue;
    const size_t a_count = size_t(sh.m) * sh.k, b_count = size_t(sh.k) * sh.n, c_count = size_t(sh.m) * sh.n;
    std::vector<double> A(a_count), B(b_count), C(c_count), reference(c_count);
    tut::fill_random(A.data(), a_count, 11, -1.0, 1.0);
    tut::fill_random(B.data(), b_count, 12, -1.0, 1.0);
    matmult_lib(sh.m, sh.n, sh.k, A.data(), B.data(), reference.data());
    const bool pin = pinned_host && device.usable;
    const PageLocked pinned_A(pin, A), pinned_B(pin, B), pinned_C(pin, C);
    tut::DeviceBuffer<double> dA, dB, dC;  // only with a GPU: without one, no type here needs them
    if (device.usable) {
      dA = tut::DeviceBuffer<double>(a_count);
      dB = tut::DeviceBuffer<double>(b_count);
      dC = tut::DeviceBuffer<double>(c_count);
      dA.upload(A.data());
      dB.upload(B.data());
    }
    const double flops = 2.0 * sh.m * sh.n * double(sh.k);
    // The ceiling of the GPU types at this shape: cuBLAS on the same buffers, in this run.
    double cublas_gflops = 0;
    if (device.usable) {
      const MatmulLaunch cublas = tut::stage_named(matmul_stages(), "gpulib").code.device;
      const tut::TimingStats first = tut::time_device(cublas, stream, 0, 1, sh.m, sh.n, sh.k, dA.get(), dB.get(), dC.get(), stream);
      const tut::TimingStats t = tut::time_device(cublas, stream, 0, repeats_for(first.median_ms / 1e3), sh.m, sh.n, sh.k,
                                                  dA.get(), dB.get(), dC.get(), stream);
      cublas_gflops = flops / (t.median_ms * 1e-3) / 1e9;
    }
    for (const Timed& type : types) {
      if (!runs_at(type, sh)) continue;
      const std::string name = type.name;
      tut::Table::Row row = table.add_row().set("type", type.name).set("m", sh.m).set("n", sh.n).set("k", sh.k);
      const tut::Range range(name + " " + std::to_string(sh.m) + "x" + std::to_string(sh.n) + "x" + std::to_string(sh.k) +
                             ": checked and timed");
      bool ok = true;
      try {
        // Each type is called from here, in main's own loops (README: the frames from main() to
        // a kernel). The first call is the warm-up, the one that is checked, and the one whose
        // time sets the repeats.
        if (type.host) {
          tut::poison(C.data(), c_count);
          tut::HostTimer first, timer;
          first.start();
          type.host(sh.m, sh.n, sh.k, A.data(), B.data(), C.data());
          first.stop();
          ok = ok && close_to(C, reference, sh.k);
          for (int r = repeats_for(first.stats().median_ms / 1e3); r > 0; --r) {
            timer.start();
            type.host(sh.m, sh.n, sh.k, A.data(), B.data(), C.data());
            timer.stop();
          }
          const tut::TimingStats t = timer.stats();
          row.set("host_ms", t.median_ms).set("host_gflops", flops / (t.median_ms * 1e-3) / 1e9);
        }
        if (type.device) {
          CUDA_CHECK(cudaMemset(dC.get(), 0xFF, dC.bytes()));
          tut::DeviceTimer first(stream), timer(stream);
          first.start();
          type.device(sh.m, sh.n, sh.k, dA.get(), dB.get(), dC.get(), stream);
          first.stop();
          dC.download(C.data());
          ok = ok && close_to(C, reference, sh.k);
          for (int r = repeats_for(first.stats().median_ms / 1e3); r > 0; --r) {
            timer.start();
            type.device(sh.m, sh.n, sh.k, dA.get(), dB.get(), dC.get(), stream);
            timer.stop();
          }
          const tut::TimingStats t = timer.stats();
          const double gflops = flops / (t.median_ms * 1e-3) / 1e9;
          row.set("device_ms", t.median_ms).set("device_gflops", gflops).set_ceiling("cuBLAS", gflops / cublas_gflops);
          if (type.plan) row.set("plan", type.plan(sh.m, sh.n, sh.k));
        } else {
          row.set("cpu_threads", name == "lib" ? openblas_get_num_threads() : 1);
        }
      } catch (const tut::NoDeviceError& e) {  // a type this GPU or build cannot run (gpu7 before 8.0)
        row.set("check", "cannot run here");
        if (unable.insert(name).second) std::cerr << "matmul_bench: " << e.what() << "\n";
        continue;
      }
      row.set("check", ok ? "ok" : "FAIL");
      all_ok = all_ok && ok;
      if (!ok) std::cerr << "matmul_bench: " << name << " is wrong at " << sh.m << "x" << sh.n << "x" << sh.k << "\n";
    }
  }
  if (device.usable) CUDA_CHECK(cudaStreamDestroy(stream));
  table.print(std::cout, format);
  if (!all_ok) std::cerr << "matmul_bench: some results did not match OpenBLAS (rows with check FAIL)\n";
  return all_ok ? 0 : 1;
} catch (...) {
  return tut::exit_code_for_failure("matmul_bench");
}
