// Chapter 02-matmul: C = A B in double, with the DTU 02614 course's interface. Row-major;
// A is m x k, B is k x n, C is m x n; the matmult_TYPE functions take host pointers and each
// GPU version allocates, copies in, computes, copies out, as in the course.
#pragma once
#include <cuda_runtime.h>

#include <string>
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

// A type that chooses how to run each shape (gpu8) says what it chose, for the benchmark.
using MatmulPlanText = std::string (*)(int m, int n, int k);

// What a type's file hands over, as `const MatmulCode matmul_<type>`: its course function and,
// for a GPU type, its launcher on device data, the variants it sweeps and its plan's words.
struct MatmulCode {
  constexpr MatmulCode(MatmulHostCall course) : host(course) {}
  constexpr MatmulCode(MatmulHostCall course, MatmulLaunch launch) : host(course), device(launch) {}
  template <size_t N>
  constexpr MatmulCode(MatmulHostCall course, MatmulLaunch launch, const MatmulVariant (&sweep)[N],
                       MatmulPlanText plan_text = nullptr)
      : host(course), device(launch), variants(sweep), variant_count(int(N)), plan(plan_text) {}
  MatmulHostCall host;
  MatmulLaunch device = nullptr;
  const MatmulVariant* variants = nullptr;
  int variant_count = 0;
  MatmulPlanText plan = nullptr;
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

// gpu7's tensor-core kernel in one tile shape (bm x bn of C per block, k-tiles of bk), for the
// types built on it (gpu8): launch computes C = A B on the device with k cut into `splits`
// shares of whole k-tiles, share z's partial product into C + z m n (splits = 1: C = A B).
// stream_k: C = A B in `blocks` blocks (at most stream_k_blocks_per_sm() per SM) taking equal
// runs of all the tiles' k-tiles, partial tiles handed over through `partials` (blocks x bm x bn
// doubles) and `ready` (blocks flags, zero before and after).
struct TensorCoreTiles {
  int bm, bn, bk;
  int (*blocks_per_sm)();  // resident at once on one SM
  void (*launch)(int m, int n, int k, int splits, const double* A, const double* B, double* C, cudaStream_t stream);
  int (*stream_k_blocks_per_sm)();
  void (*stream_k)(int m, int n, int k, int blocks, const double* A, const double* B, double* C, double* partials,
                   unsigned* ready, cudaStream_t stream);
};
constexpr int kGpu7TileShapes = 3;
extern const TensorCoreTiles gpu7_tiles[kGpu7TileShapes];  // 128x128 (gpu7's own), 128x64, 64x64
