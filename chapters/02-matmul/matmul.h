// Chapter 02-matmul: C = A B in double, with the DTU 02614 course's interface. Row-major;
// A is m x k, B is k x n, C is m x n; the matmult_TYPE functions take host pointers and each
// GPU version allocates, copies in, computes, copies out, as in the course.
#pragma once
#include <cuda_runtime.h>

#include <vector>

#include "device.h"
#include "stages.h"

using tut::blocks_for;  // the stages size their grids with it

// The course's functions, one per type of matmul.stages: matmult_nat, matmult_lib, matmult_gpu1...
using MatmulHostCall = void (*)(int m, int n, int k, double* A, double* B, double* C);
extern "C" {
#define STAGE(name, ...) void matmult_##name(int m, int n, int k, double* A, double* B, double* C);
#include "matmul.stages"
#undef STAGE
}

// The shared launcher signature of the GPU stages: device pointers, C = A B enqueued on stream.
using MatmulLaunch = void (*)(int m, int n, int k, const double* A, const double* B, double* C,
                              cudaStream_t stream);

// A variant of a type that the benchmark also times and the tests also check (gpu4's ROWS).
struct MatmulVariant {
  const char* name;  // "gpu4_2"
  MatmulLaunch launch;
};

// What a type's file hands over, as `const MatmulCode matmul_<type>`: its course function and,
// for a GPU type, its launcher on device data and the variants it sweeps.
struct MatmulCode {
  constexpr MatmulCode(MatmulHostCall course) : host(course) {}
  constexpr MatmulCode(MatmulHostCall course, MatmulLaunch launch) : host(course), device(launch) {}
  template <size_t N>
  constexpr MatmulCode(MatmulHostCall course, MatmulLaunch launch, const MatmulVariant (&sweep)[N])
      : host(course), device(launch), variants(sweep), variant_count(int(N)) {}
  MatmulHostCall host;
  MatmulLaunch device = nullptr;
  const MatmulVariant* variants = nullptr;
  int variant_count = 0;
};

struct MatmulStage : tut::StageInfo {
  MatmulCode code;
};

#define STAGE(name, ...) extern const MatmulCode matmul_##name;
#include "matmul.stages"
#undef STAGE

// Every type, in the list's order.
const std::vector<const MatmulStage*>& matmul_stages();
// Every variant the types sweep (gpu4_2, ..., gpu7_k8, ...), in the list's order.
const std::vector<const MatmulVariant*>& matmul_variants();

// What every GPU type of the course does around its kernel: allocate, copy A and B in,
// launch, copy C out, free.
void matmult_on_device(int m, int n, int k, const double* A, const double* B, double* C, MatmulLaunch launch);
