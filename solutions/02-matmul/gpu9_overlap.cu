// matmul gpu9: the course's host-to-host call, its copies hidden behind each other and the products.
//   run:  build/chapters/02-matmul/matmult_f gpu9 4096 4096 4096
//   test: meson test -C build matmul-gpu9 matmul-gpu9-idea --print-errorlogs
//   timeline of a call: MATMUL_GPU9_TIMELINE=t.csv build/chapters/02-matmul/matmult_f gpu9 4096 4096 4096,
//     then chapters/02-matmul/plot_matmul.py --timeline t.csv --png t.png
// Change from gpu8: the kernel stays (gpu8's plan); what changes is the way to and from it. The
// course passes ordinary (pageable) host memory, which the GPU's copy engine cannot read by
// itself: cudaMemcpy from it goes through a driver buffer, one piece after the other, while
// nothing else happens. gpu9 keeps a few pinned (page-locked) staging slots, which the copy
// engine reads and writes at the bus's full rate, and works as a pipeline on three streams:
//   the CPU copies a slice of B, then of A, into a free slot (all cores at once) while the copy
//   engine moves the slot before it to the GPU (stream `in`);
//   C is cut into pieces of rows; the product of piece p starts as soon as its rows of A are
//   there (stream `compute` waits for that copy's event, cudaStreamWaitEvent), while the rows of
//   the next piece are still coming in;
//   each piece of C goes back (stream `out`, after its product's event) into slots that the CPU
//   empties into the caller's C while later pieces are computed.
// The GPU's buffers and the slots are kept from call to call (a library's workspace), so a call
// allocates nothing once the sizes have been seen.
// Why it should help: host to host at 4096^3, the copies of A, B and C are nearly all of the
// time (gpulib spends 2 ms multiplying and tens of ms copying); pinned copies are faster, and
// copies that overlap cost only the longest of them.
// What still limits it: every byte crosses the CPU's memory twice (caller's array <-> slot), so
// the CPU's copy rate and the bus's rate, whichever is lower, bound the call; B must be whole on
// the GPU before the first product.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"
#include "matmul.h"
#include "stress.h"

namespace {

constexpr size_t kSlotDoubles = size_t(1) << 20;  // 8 MiB a slot
constexpr int kSlots = 4;
constexpr int kPieces = 8;  // C cut into this many pieces of rows (of whole 128-row tiles)

// What a call reuses: the GPU's buffers (grown when a larger problem comes), the pinned slots,
// the streams, and an event per slot (its last copy done) and per piece. Never freed: it lives
// as long as the process, as a library's workspace does.
// When MATMUL_GPU9_TIMELINE names a file, each call writes there when each of its copies and
// products ran, for the lesson's picture (chapters/02-matmul/plot_matmul.py --timeline): a line per span,
// lane (cpu, in, compute, out), what, start and end in ms from the call's start. GPU spans are
// timed by events around them, the CPU's by the host clock from the moment the first event ran.
class Timeline {
 public:
  bool on() const { return !path_.empty(); }
  void start(cudaStream_t stream) {
    if (!on()) return;
    spans_.clear();
    CUDA_CHECK(cudaEventCreate(&origin_));
    CUDA_CHECK(cudaEventRecord(origin_, stream));
    CUDA_CHECK(cudaEventSynchronize(origin_));
    host_origin_ = std::chrono::steady_clock::now();
  }
  // A span of GPU work on `stream`: an event before it (gpu_begin) and one after (gpu_end).
  void gpu_begin(const char* lane, const char* what, cudaStream_t stream) {
    if (!on()) return;
    Span span{lane, what};
    CUDA_CHECK(cudaEventCreate(&span.begin));
    CUDA_CHECK(cudaEventCreate(&span.end));
    CUDA_CHECK(cudaEventRecord(span.begin, stream));
    spans_.push_back(span);
  }
  void gpu_end(cudaStream_t stream) {
    if (on()) CUDA_CHECK(cudaEventRecord(spans_.back().end, stream));
  }
  // `work` on the CPU, between two clock readings.
  template <class F>
  void cpu(const char* what, F work) {
    if (!on()) return work();
    const auto ms = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_origin_).count(); };
    Span span{"cpu", what};
    span.host_start = ms();
    work();
    span.host_end = ms();
    spans_.push_back(span);
  }
  void write() {
    if (!on()) return;
    CUDA_CHECK(cudaDeviceSynchronize());
    FILE* out = std::fopen(path_.c_str(), "w");
    if (!out) throw std::runtime_error("matmult_gpu9: cannot write the timeline to " + path_);
    std::fprintf(out, "lane,what,start_ms,end_ms\n");
    for (Span& s : spans_) {
      float begin = float(s.host_start), end = float(s.host_end);
      if (s.begin) {
        CUDA_CHECK(cudaEventElapsedTime(&begin, origin_, s.begin));
        CUDA_CHECK(cudaEventElapsedTime(&end, origin_, s.end));
        CUDA_CHECK(cudaEventDestroy(s.begin));
        CUDA_CHECK(cudaEventDestroy(s.end));
      }
      std::fprintf(out, "%s,%s,%.4f,%.4f\n", s.lane, s.what, begin, end);
    }
    std::fclose(out);
    CUDA_CHECK(cudaEventDestroy(origin_));
  }

 private:
  struct Span {
    const char *lane, *what;
    cudaEvent_t begin = nullptr, end = nullptr;
    double host_start = 0, host_end = 0;
  };
  std::string path_ = std::getenv("MATMUL_GPU9_TIMELINE") ? std::getenv("MATMUL_GPU9_TIMELINE") : "";
  std::vector<Span> spans_;
  cudaEvent_t origin_ = nullptr;
  std::chrono::steady_clock::time_point host_origin_;
};

struct Workspace {
  double *A = nullptr, *B = nullptr, *C = nullptr;
  size_t a_size = 0, b_size = 0, c_size = 0;
  double* slot[kSlots];
  cudaEvent_t slot_done[kSlots], a_ready[kPieces], c_ready[kPieces];
  cudaStream_t in, compute, out;
  int next = 0;  // the slot to use next, round the ring
  Timeline timeline;
};

Workspace& workspace() {
  static Workspace* w = [] {
    auto* w = new Workspace;
    for (int s = 0; s < kSlots; ++s) {
      CUDA_CHECK(cudaMallocHost(&w->slot[s], kSlotDoubles * sizeof(double)));
      CUDA_CHECK(cudaEventCreateWithFlags(&w->slot_done[s], cudaEventDisableTiming));
      CUDA_CHECK(cudaEventRecord(w->slot_done[s]));  // free from the start
    }
    for (int p = 0; p < kPieces; ++p) {
      CUDA_CHECK(cudaEventCreateWithFlags(&w->a_ready[p], cudaEventDisableTiming));
      CUDA_CHECK(cudaEventCreateWithFlags(&w->c_ready[p], cudaEventDisableTiming));
    }
    for (cudaStream_t* s : {&w->in, &w->compute, &w->out}) CUDA_CHECK(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
    return w;
  }();
  return *w;
}

// A new buffer starts as zeros: gpu8's plan is timed on it before the call's data are there.
void grow(double*& buffer, size_t& size, size_t doubles) {
  if (doubles <= size) return;
  if (buffer) CUDA_CHECK(cudaFree(buffer));
  CUDA_CHECK(cudaMalloc(&buffer, doubles * sizeof(double)));
  CUDA_CHECK(cudaMemset(buffer, 0, doubles * sizeof(double)));
  size = doubles;
}

// memcpy with every core: the CPU's share of the pipeline is its copies, and one core alone is
// slower than the bus.
void copy_on_all_cores(double* to, const double* from, size_t count) {
  constexpr size_t kPart = size_t(1) << 16;  // 512 KiB
  const long long parts = (long long)((count + kPart - 1) / kPart);
#pragma omp parallel for schedule(static)
  for (long long q = 0; q < parts; ++q) {
    const size_t at = size_t(q) * kPart;
    std::memcpy(to + at, from + at, std::min(kPart, count - at) * sizeof(double));
  }
}

// The host waits for a slot's last copy. (In stress builds the copies in are held back until
// the host first has to wait here: common/stress.h.)
void wait_for(cudaEvent_t copy_done) {
  tut::stress::release_if_pending(copy_done);
  CUDA_CHECK(cudaEventSynchronize(copy_done));
}

// The next slot of the ring, once its last copy is done.
int free_slot(Workspace& w) {
  const int s = w.next;
  w.next = (s + 1) % kSlots;
  if constexpr (!tut::stress::removed("slot_landed_before_refill"))  // the stress suite's build without it fails
    wait_for(w.slot_done[s]);
  return s;
}

// count doubles from the caller's memory to the GPU on stream `in`, a slot at a time: the CPU
// fills one slot while the copy engine empties the one before.
void upload(Workspace& w, double* device, const double* host, size_t count, const char* what) {
  for (size_t done = 0; done < count; done += kSlotDoubles) {
    const size_t n = std::min(kSlotDoubles, count - done);
    const int s = free_slot(w);
    w.timeline.cpu(what, [&] { copy_on_all_cores(w.slot[s], host + done, n); });
    w.timeline.gpu_begin("in", what, w.in);
    CUDA_CHECK(cudaMemcpyAsync(device + done, w.slot[s], n * sizeof(double), cudaMemcpyHostToDevice, w.in));
    w.timeline.gpu_end(w.in);
    CUDA_CHECK(cudaEventRecord(w.slot_done[s], w.in));
  }
}

// count doubles from the GPU to the caller's memory on stream `out`: all the ring's slots in
// flight, each emptied by the CPU as soon as its copy has landed.
void download(Workspace& w, double* host, const double* device, size_t count) {
  struct InFlight {
    int slot;
    size_t at, n;
  };
  std::deque<InFlight> in_flight;
  const auto land_oldest = [&] {
    const InFlight f = in_flight.front();
    in_flight.pop_front();
    wait_for(w.slot_done[f.slot]);
    w.timeline.cpu("C", [&] { copy_on_all_cores(host + f.at, w.slot[f.slot], f.n); });
  };
  for (size_t done = 0; done < count; done += kSlotDoubles) {
    if (in_flight.size() == kSlots - 1) land_oldest();
    const size_t n = std::min(kSlotDoubles, count - done);
    const int s = free_slot(w);
    w.timeline.gpu_begin("out", "C", w.out);
    CUDA_CHECK(cudaMemcpyAsync(w.slot[s], device + done, n * sizeof(double), cudaMemcpyDeviceToHost, w.out));
    w.timeline.gpu_end(w.out);
    CUDA_CHECK(cudaEventRecord(w.slot_done[s], w.out));
    in_flight.push_back({s, done, n});
  }
  while (!in_flight.empty()) land_oldest();
}

}  // namespace

extern "C" void matmult_gpu9(int m, int n, int k, double* A, double* B, double* C) {
  if (m <= 0 || n <= 0) return;
  Workspace& w = workspace();
  grow(w.A, w.a_size, size_t(m) * k);
  grow(w.B, w.b_size, size_t(k) * n);
  grow(w.C, w.c_size, size_t(m) * n);
  // Pieces of whole 128-row tiles; fewer pieces where m is small.
  const int rows = std::max(128, (m + kPieces - 1) / kPieces + 127) / 128 * 128;
  const int pieces = (m + rows - 1) / rows;
  const auto first_row = [&](int p) { return p * rows; };
  const auto rows_of = [&](int p) { return std::min(rows, m - p * rows); };
  // gpu8's plans for the pieces (all of one shape but perhaps the last), made before the pipeline
  // starts: a shape's first plan is timed, which would stall the streams.
  const MatmulPlan plan = gpu8_plan(rows_of(0), n, k, w.A, w.B, w.C, w.compute);
  const MatmulPlan last_plan = gpu8_plan(rows_of(pieces - 1), n, k, w.A, w.B, w.C, w.compute);
  w.timeline.start(w.in);
  // Stress builds: the copies in land only once the host waits for one of them, after every
  // refill of a slot and every product enqueued until then.
  tut::stress::hold(w.in);

  // EXERCISE: B whole, then each piece's rows of A on stream `in` (record a_ready[p] after a
  //   piece); each piece's product on stream `compute` once its rows are there (wait for
  //   a_ready[p]; gpu8's plan launched on the piece), then record c_ready[p]; then each piece of C
  //   back on stream `out` once its product is done (wait for c_ready[p]), into the caller's C
  upload(w, w.B, B, size_t(k) * n, "B");
  for (int p = 0; p < pieces; ++p) {
    upload(w, w.A + size_t(first_row(p)) * k, A + size_t(first_row(p)) * k, size_t(rows_of(p)) * k, "A");
    CUDA_CHECK(cudaEventRecord(w.a_ready[p], w.in));
    if constexpr (!tut::stress::removed("product_waits_for_rows"))  // the stress suite's build without it fails
      CUDA_CHECK(cudaStreamWaitEvent(w.compute, w.a_ready[p]));
    tut::stress::delay(w.compute);  // stress builds: each product starts 20 ms late
    w.timeline.gpu_begin("compute", "product", w.compute);
    gpu8_launch(p < pieces - 1 ? plan : last_plan, rows_of(p), n, k, w.A + size_t(first_row(p)) * k, w.B,
                w.C + size_t(first_row(p)) * n, w.compute);
    w.timeline.gpu_end(w.compute);
    CUDA_CHECK(cudaEventRecord(w.c_ready[p], w.compute));
  }
  for (int p = 0; p < pieces; ++p) {
    if constexpr (!tut::stress::removed("copy_back_waits_for_product"))  // the stress suite's build without it fails
      CUDA_CHECK(cudaStreamWaitEvent(w.out, w.c_ready[p]));
    download(w, C + size_t(first_row(p)) * n, w.C + size_t(first_row(p)) * n, size_t(rows_of(p)) * n);
  }

  CUDA_CHECK(cudaStreamSynchronize(w.out));  // a fault in a product surfaces here
  CUDA_CHECK(cudaStreamSynchronize(w.compute));
  w.timeline.write();
}

// On data already on the GPU there is nothing to overlap: the device-only time is gpu8's.
const MatmulCode matmul_gpu9{matmult_gpu9, gpu8_plan_and_launch};
