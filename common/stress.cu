#include "stress.h"

#include <atomic>

#include "check.h"

namespace tut::stress {
namespace {

// The host's word that held streams may go on: pinned memory the GPU reads directly.
volatile unsigned* released() {
  static volatile unsigned* flag = [] {
    unsigned* p;
    CUDA_CHECK(cudaHostAlloc(&p, sizeof *p, cudaHostAllocMapped));
    *p = 1;
    return p;
  }();
  return flag;
}

__global__ void wait_for_release(const volatile unsigned* released, unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while ((released == nullptr || *released == 0) && now - start < ns);
}

}  // namespace

void hold_stream(cudaStream_t stream, float ms) {
  volatile unsigned* flag = released();
  *flag = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  unsigned* on_device;
  CUDA_CHECK(cudaHostGetDevicePointer(&on_device, const_cast<unsigned*>(flag), 0));
  wait_for_release<<<1, 1, 0, stream>>>(on_device, (unsigned long long)(ms * 1e6f));
  CUDA_CHECK_LAUNCH();
}

void delay_stream(cudaStream_t stream, float ms) {
  wait_for_release<<<1, 1, 0, stream>>>(nullptr, (unsigned long long)(ms * 1e6f));  // nothing releases it
  CUDA_CHECK_LAUNCH();
}

void release_held() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *released() = 1;
}

}  // namespace tut::stress
