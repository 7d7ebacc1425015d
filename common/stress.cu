#include "stress.h"

#include "check.h"

namespace tut::stress {
namespace {

__global__ void wait_for(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

}  // namespace

void hold_stream(cudaStream_t stream, float ms) {
  wait_for<<<1, 1, 0, stream>>>((unsigned long long)(ms * 1e6f));
  CUDA_CHECK_LAUNCH();
}

}  // namespace tut::stress
