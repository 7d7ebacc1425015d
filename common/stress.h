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

// common/stress.cu: a kernel on `stream` that waits until release_held() or `ms` milliseconds.
void hold_stream(cudaStream_t stream, float ms);
void release_held();

// In stress builds, what is enqueued on `stream` from now on starts only once the host is
// about to wait for an event that has not happened yet (release_if_pending, which a stage
// calls before its own waits), or after `ms` milliseconds (where the host waits elsewhere):
// however slow the host is, everything it enqueues before it waits runs late. Nothing in
// other builds.
inline void hold(cudaStream_t stream, float ms = 500.0f) {
  if constexpr (on) hold_stream(stream, ms);
}
inline void release_if_pending(cudaEvent_t event) {
  if constexpr (on)
    if (cudaEventQuery(event) == cudaErrorNotReady) release_held();
}

// In stress builds, what is enqueued on `stream` from now on starts `ms` milliseconds late,
// whatever the host does (a busy GPU's late kernel); nothing in other builds.
void delay_stream(cudaStream_t stream, float ms);
inline void delay(cudaStream_t stream, float ms = 20.0f) {
  if constexpr (on) delay_stream(stream, ms);
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
