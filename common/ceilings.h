// The ceilings a stage is compared with, measured in the same run as the stage itself.
#pragma once
#include <cstddef>

#include "timing.h"

namespace tut {

struct CopyBandwidth {
  size_t bytes_per_buffer = 0;
  double gb_per_s = 0;  // (bytes read + bytes written) / median time, in 1e9 B/s
  TimingStats time;
  bool verified = false;  // every copied byte arrived (checked on the host after the timing)
};

// Device-to-device cudaMemcpy between two fresh buffers of `bytes` each. A buffer much larger
// than the L2 cache measures DRAM; one that fits in L2 measures the cache.
CopyBandwidth measure_copy_bandwidth(size_t bytes, int repeats = 10);

// The same copy done by a kernel, each thread moving `floats_per_thread` (1, or 4 as one
// float4) adjacent floats: how close plain loads and stores of that width come to the copy above.
CopyBandwidth measure_kernel_copy_bandwidth(size_t bytes, int floats_per_thread, int repeats = 10);

struct ArithmeticRate {
  double gflops = 0;       // counted flops / median time
  TimingStats time;
  bool verified = false;   // the result matched a host computation of the same work
};

// Fused multiply-adds in independent chains, enough threads to fill every multiprocessor:
// the highest rate plain CUDA code reaches, 2 flops per FMA. T is float or double.
template <class T>
ArithmeticRate measure_fma_rate(int repeats = 5);

// cuBLAS GEMM, C = A B on random n x n matrices (SGEMM without TF32, or DGEMM), 2 n^3 flops;
// a few entries of C are checked against the host in double.
template <class T>
ArithmeticRate measure_gemm_rate(int n, int repeats = 5);

class Table;
// Measures the device-to-device copy of `bytes` per buffer (read + write counted, median of 10)
// and notes it in a result table as its "copy ceiling"; returns it in GB/s.
double note_copy_ceiling(Table& table, size_t bytes = size_t(512) << 20);

// Median time, in microseconds, of one launch of an empty kernel, measured over `launches`
// back-to-back launches on one stream: the floor under any kernel of a many-step loop.
double measure_empty_launch_us(int launches, int repeats = 5);

// Median time, in microseconds, of one grid-wide barrier (cooperative_groups' grid.sync()) in a
// cooperative kernel of one block of `threads` threads per multiprocessor: the floor under each
// step of a kernel that loops over the steps itself. The kernel's launch is not counted (a
// launch of `barriers` barriers minus a launch of none).
double measure_grid_barrier_us(int threads, int barriers = 2000, int repeats = 5);

}  // namespace tut
