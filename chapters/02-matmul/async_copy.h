// Asynchronous copies from global to shared memory (cp.async, compute capability 8.0 and newer),
// used by gpu7's pipeline and by the tests' deliberately early pipeline. A thread starts copies,
// closes them into a group, and later waits until at most N of its groups are still in flight;
// only then, and after a __syncthreads for the other threads' copies, may the data be read.
#pragma once

#include <cuda_runtime.h>

// Starts copying WIDTH doubles (1 or 2) from `from` to `to`, without a trip through registers.
// Where `inside` is false nothing is read (`from` need only be a valid address) and `to` gets
// zeros: a tile that hangs over a matrix's edge is padded with zeros by the copy itself.
template <int WIDTH>
__device__ inline void copy_async(double* to, const double* from, bool inside) {
  static_assert(WIDTH == 1 || WIDTH == 2, "cp.async moves 8 or 16 bytes here");
#if __CUDA_ARCH__ >= 800
  const unsigned shared_address = static_cast<unsigned>(__cvta_generic_to_shared(to));
  const int bytes_read = inside ? 8 * WIDTH : 0;
  if constexpr (WIDTH == 2)  // .cg: 16 bytes, kept in L2 only (they are reused from shared memory)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address), "l"(from), "r"(bytes_read));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(shared_address), "l"(from), "r"(bytes_read));
#endif
}

// Closes the copies started since the last call into one group.
__device__ inline void close_copy_group() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most IN_FLIGHT of this thread's groups are unfinished (the oldest finish first).
template <int IN_FLIGHT>
__device__ inline void wait_for_copy_groups() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(IN_FLIGHT) : "memory");
#endif
}
