// Finding a usable GPU (or explaining why there is none) and owning device memory.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

namespace tut {

struct DeviceInfo {
  bool usable = false;
  std::string why_not;  // when !usable: a sentence a student can act on
  int id = -1;
  cudaDeviceProp props{};
  std::string describe() const;  // "NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB)"
};

// Looks at device 0 (or CUDA_VISIBLE_DEVICES' first) and makes it current.
DeviceInfo find_device();

// find_device() for programs that have nothing to do without a GPU: throws NoDeviceError.
DeviceInfo require_device();

// Exit code that Meson (and automake) read as "test skipped".
constexpr int kSkipExitCode = 77;

std::string format_bytes(double bytes);  // "8.0 MiB", "1.5 GiB"

// The current device's multiprocessors (SMs).
int multiprocessor_count();

// How many blocks of `kernel` with `threads` threads and `shared` bytes can be resident at once
// on the whole current GPU: what a cooperative launch may ask for.
int resident_blocks(const void* kernel, int threads, size_t shared);

// Blocks of `b` threads needed to cover n items (any n >= 0): the usual rounded-up division.
inline unsigned blocks_for(long long n, unsigned b) { return unsigned((n + b - 1) / b); }

// A CUDA stream for the scope it is made in (an error in making it throws, as CUDA_CHECK does).
class Stream {
 public:
  Stream();
  ~Stream() { cudaStreamDestroy(stream_); }  // no check: a destructor must not throw
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  operator cudaStream_t() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// cudaMalloc'd array of T; an allocation failure names the size asked for.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) : count_(count) { ptr_ = static_cast<T*>(allocate(count * sizeof(T))); }
  ~DeviceBuffer() { release(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr; o.count_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  T* get() const { return ptr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }
  void upload(const T* host) { copy(ptr_, host, bytes(), cudaMemcpyHostToDevice); }
  void download(T* host) const { copy(host, ptr_, bytes(), cudaMemcpyDeviceToHost); }

 private:
  static void* allocate(size_t bytes);
  static void release(void* p) noexcept;
  static void copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

// cudaMallocHost'd (page-locked) host array of T: the GPU's copy engines read and write it
// directly, at the link's full rate and concurrently with kernels. A failure names the size.
template <class T>
class PinnedBuffer {
 public:
  explicit PinnedBuffer(size_t count) : ptr_(static_cast<T*>(allocate_pinned(count * sizeof(T)))), count_(count) {}
  ~PinnedBuffer() { cudaFreeHost(ptr_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  T* get() const { return ptr_; }
  size_t size() const { return count_; }

 private:
  static void* allocate_pinned(size_t bytes);
  T* ptr_;
  size_t count_;
};

// Throws a UsageError (exit code 2) when `bytes` more would not fit in free device memory.
void require_device_memory(size_t bytes, const std::string& what);
// The same for the host, against what Linux says is available (MemAvailable in /proc/meminfo),
// so that a size too large stops at once instead of in the out-of-memory killer. Where that
// figure cannot be read, nothing is checked.
void require_host_memory(size_t bytes, const std::string& what);

}  // namespace tut
