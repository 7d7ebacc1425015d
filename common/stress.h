// The stress suite's two switches, off in every program a student runs or times (they are
// compiled into the stress suite's own test programs only: meson setup -Dstress=true, then
// meson test --suite stress).
//
// A race between blocks, streams or the host shows only when the late side really is late: at
// the tests' sizes and speeds it usually is not, and a missing wait passes. TUT_STRESS makes
// it late on purpose at each hand-over of a concurrent stage (a pause in chosen blocks before
// they read what others publish, or before the rest of a block writes what one thread is about
// to announce; a stream that starts its copies late), so that a missing wait, fence or second
// buffer fails its test on every run. With the waits in place, the delays change nothing but
// the time.
//
// TUT_REMOVED="name" builds a stage without the one step it marks `removed("name")`: the
// real stage with its guard taken out, which the stress suite must see fail.
#pragma once
#include <cuda_runtime.h>

#ifndef TUT_REMOVED
#define TUT_REMOVED ""
#endif

namespace tut::stress {

#ifdef TUT_STRESS
constexpr bool on = true;
#else
constexpr bool on = false;
#endif

// Whether this build leaves out the step called `name`.
__host__ __device__ constexpr bool removed(const char* name) {
  const char* r = TUT_REMOVED;
  while (*name != '\0' && *name == *r) ++name, ++r;
  return *name == *r;
}

// Enqueues on `stream` a kernel that waits about `ms` milliseconds (common/stress.cu).
void hold_stream(cudaStream_t stream, float ms);

// Makes what is enqueued on `stream` next start about `ms` milliseconds late, in stress builds;
// nothing otherwise.
inline void start_late(cudaStream_t stream, float ms = 5.0f) {
  if constexpr (on) hold_stream(stream, ms);
}

#ifdef __CUDACC__
// Waits about `us` microseconds where `late` holds, in stress builds; nothing otherwise.
__device__ __forceinline__ void pause_if(bool late, unsigned us = 50) {
  if constexpr (on) {
    if (!late) return;
    unsigned long long now, end;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    for (end = now + 1000ull * us; now < end;) {
      __nanosleep(1000);
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    }
  }
}
#endif

}  // namespace tut::stress
