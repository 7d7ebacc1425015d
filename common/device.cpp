#include "device.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "check.h"

namespace tut {

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  std::ostringstream msg;
  msg << "CUDA error: " << call << " failed at " << file << ":" << line << ": "
      << cudaGetErrorName(code) << " (" << cudaGetErrorString(code) << ")";
  throw CudaError(code, msg.str());
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return text;
}

std::string DeviceInfo::describe() const {
  if (!usable) return "no usable GPU";
  std::ostringstream s;
  s << props.name << " (sm_" << props.major << props.minor << ", " << props.multiProcessorCount
    << " SMs, " << format_bytes(double(props.totalGlobalMem)) << ")";
  return s.str();
}

DeviceInfo find_device() {
  DeviceInfo info;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorNoDevice || (status == cudaSuccess && count == 0)) {
    info.why_not = "no CUDA-capable GPU is visible on this machine (cudaGetDeviceCount found none; "
                   "check nvidia-smi and CUDA_VISIBLE_DEVICES)";
    return info;
  }
  if (status == cudaErrorInsufficientDriver) {
    info.why_not = "no NVIDIA driver, or one older than this CUDA runtime, is installed "
                   "(cudaErrorInsufficientDriver): CUDA programs need both a driver and a GPU";
    return info;
  }
  if (status != cudaSuccess) {
    info.why_not = std::string("the CUDA runtime cannot reach a GPU: ") + cudaGetErrorName(status) + " (" +
                   cudaGetErrorString(status) + ")";
    return info;
  }
  info.id = 0;
  CUDA_CHECK(cudaGetDeviceProperties(&info.props, info.id));
  const cudaError_t set = cudaSetDevice(info.id);
  const cudaError_t ready = set == cudaSuccess ? cudaFree(nullptr) : set;  // creates the context now
  if (ready != cudaSuccess) {
    info.why_not = std::string("GPU 0 (") + info.props.name + ") is present but cannot be used: " +
                   cudaGetErrorString(ready);
    return info;
  }
  info.usable = true;
  return info;
}

DeviceInfo require_device() {
  DeviceInfo info = find_device();
  if (!info.usable) throw NoDeviceError(info.why_not);
  return info;
}

template <class T>
void* DeviceBuffer<T>::allocate(size_t bytes) {
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the sticky-free error state
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    throw CudaError(status, "out of device memory: cannot allocate " + format_bytes(double(bytes)) + " (" +
                                format_bytes(double(free_bytes)) + " free of " + format_bytes(double(total)) + ")");
  }
  CUDA_CHECK(status);
  return p;
}

template <class T>
void DeviceBuffer<T>::release(void* p) noexcept {
  if (p) cudaFree(p);
}

template <class T>
void DeviceBuffer<T>::copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
}

template class DeviceBuffer<float>;
template class DeviceBuffer<double>;
template class DeviceBuffer<int>;
template class DeviceBuffer<unsigned>;
template class DeviceBuffer<char>;

template <class T>
void* PinnedBuffer<T>::allocate_pinned(size_t bytes) {
  void* p = nullptr;
  const cudaError_t status = cudaMallocHost(&p, bytes);
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw CudaError(status, "cannot allocate " + format_bytes(double(bytes)) + " of pinned host memory (cudaMallocHost)");
  }
  return p;
}

template class PinnedBuffer<char>;
template class PinnedBuffer<float>;
template class PinnedBuffer<int>;

void require_device_memory(size_t bytes, const std::string& what) {
  size_t free_bytes = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  if (bytes > free_bytes)
    throw UsageError(what + " needs " + format_bytes(double(bytes)) + " of device memory, but only " +
                     format_bytes(double(free_bytes)) + " of " + format_bytes(double(total)) + " is free");
}

void require_host_memory(size_t bytes, const std::string& what) {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  size_t kib = 0;
  while (meminfo >> key >> kib && key != "MemAvailable:") meminfo.ignore(256, '\n');
  if (key != "MemAvailable:") return;
  const double available = double(kib) * 1024.0;
  if (double(bytes) > available)
    throw UsageError(what + " needs " + format_bytes(double(bytes)) + " of host memory, but only " +
                     format_bytes(available) + " is available");
}

int multiprocessor_count() {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

int resident_blocks(const void* kernel, int threads, size_t shared) {
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared));
  return per_sm * multiprocessor_count();
}

Stream::Stream() { CUDA_CHECK(cudaStreamCreate(&stream_)); }

}  // namespace tut
