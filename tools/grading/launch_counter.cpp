// Preloaded by tools/grade.py into a GPU stage's test (LD_PRELOAD) to see where the work went:
// the threads of every kernel launched through the CUDA runtime, the graphs launched, and the
// bytes copied from the device to the host. At exit it writes them, as "counts TOKEN threads N
// graphs N d2h_bytes N", to the pipe whose descriptor $TUT_GRADE_COUNTS_FD names: no file that
// the stage's code could rewrite afterwards. The stage's code can write to that pipe too, so the
// report carries a token that the grader puts, once, into another pipe ($TUT_GRADE_TOKEN_FD),
// which the counter drains as it is loaded: a report without it is not the counter's, and if
// other code drained the pipe first, the counter's report says so ("taken"). The grader
// compares the counts with the solution's on the same test: a "GPU" stage that launches next to
// nothing, or copies its data to the host, is computing there.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <atomic>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace {

std::atomic<unsigned long long> threads{0}, graphs{0}, d2h_bytes{0};
char token[64] = "taken";  // the grader's token, once read

int fd_named(const char* variable) {
  const char* text = std::getenv(variable);
  return text && *text ? std::atoi(text) : -1;
}

__attribute__((constructor)) void read_token() {
  const int fd = fd_named("TUT_GRADE_TOKEN_FD");
  if (fd < 0) return;
  char read_now[sizeof token] = {};
  const ssize_t n = read(fd, read_now, sizeof read_now - 1);
  close(fd);
  if (n > 0) std::snprintf(token, sizeof token, "%s", read_now);
}

template <typename F>
F next(const char* name) {  // the CUDA runtime's own function of that name
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

void count_threads(dim3 grid, dim3 block) {
  threads += 1ull * grid.x * grid.y * grid.z * block.x * block.y * block.z;
}

bool is_host(const void* p) {
  cudaPointerAttributes a{};
  if (next<cudaError_t (*)(cudaPointerAttributes*, const void*)>("cudaPointerGetAttributes")(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return true;
  }
  return a.type == cudaMemoryTypeHost || a.type == cudaMemoryTypeUnregistered;
}

void count_copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  if (kind == cudaMemcpyDeviceToHost || (kind == cudaMemcpyDefault && is_host(dst) && !is_host(src)))
    d2h_bytes += bytes;
}

__attribute__((destructor)) void write_counts() {
  const int fd = fd_named("TUT_GRADE_COUNTS_FD");
  if (fd < 0) return;
  char line[200];
  const int n = std::snprintf(line, sizeof line, "counts %s threads %llu graphs %llu d2h_bytes %llu\n", token,
                              threads.load(), graphs.load(), d2h_bytes.load());
  if (write(fd, line, size_t(n)) != n) return;  // the grader reports a missing count
}

}  // namespace

extern "C" {

cudaError_t cudaLaunchKernel(const void* f, dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t s) {
  count_threads(grid, block);
  static auto real = next<decltype(&cudaLaunchKernel)>("cudaLaunchKernel");
  return real(f, grid, block, args, shared, s);
}

// What nvcc's <<<...>>> compiles to (CUDA 13): the runtime's internal launch.
cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t s) {
  count_threads(grid, block);
  static auto real = next<decltype(&__cudaLaunchKernel)>("__cudaLaunchKernel");
  return real(k, grid, block, args, shared, s);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 grid, dim3 block, void** args, size_t shared,
                                    cudaStream_t s) {
  count_threads(grid, block);
  static auto real = next<decltype(&__cudaLaunchKernel_ptsz)>("__cudaLaunchKernel_ptsz");
  return real(k, grid, block, args, shared, s);
}

cudaError_t cudaLaunchCooperativeKernel(const void* f, dim3 grid, dim3 block, void** args, size_t shared,
                                        cudaStream_t s) {
  count_threads(grid, block);
  static auto real = next<decltype(&cudaLaunchCooperativeKernel)>("cudaLaunchCooperativeKernel");
  return real(f, grid, block, args, shared, s);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* f, void** args) {
  count_threads(config->gridDim, config->blockDim);
  static auto real = next<decltype(&cudaLaunchKernelExC)>("cudaLaunchKernelExC");
  return real(config, f, args);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graph, cudaStream_t s) {
  ++graphs;
  static auto real = next<decltype(&cudaGraphLaunch)>("cudaGraphLaunch");
  return real(graph, s);
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  count_copy(dst, src, bytes, kind);
  static auto real = next<decltype(&cudaMemcpy)>("cudaMemcpy");
  return real(dst, src, bytes, kind);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s) {
  count_copy(dst, src, bytes, kind);
  static auto real = next<decltype(&cudaMemcpyAsync)>("cudaMemcpyAsync");
  return real(dst, src, bytes, kind, s);
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind) {
  count_copy(dst, src, width * height, kind);
  static auto real = next<decltype(&cudaMemcpy2D)>("cudaMemcpy2D");
  return real(dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t s) {
  count_copy(dst, src, width * height, kind);
  static auto real = next<decltype(&cudaMemcpy2DAsync)>("cudaMemcpy2DAsync");
  return real(dst, dpitch, src, spitch, width, height, kind, s);
}

}  // extern "C"
