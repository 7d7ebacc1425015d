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

// What every GPU type of the course does around its kernel: A and B copied to the GPU, C
// allocated there (all bits set, a NaN: an element the kernel never writes comes back as NaN);
// after the launch, copy_c_to waits for the kernels (a fault inside one surfaces there) and
// copies C back. The buffers are freed when it goes out of scope.
struct DeviceProduct {
  DeviceProduct(int m, int n, int k, const double* A_host, const double* B_host);
  void copy_c_to(double* C_host);
  tut::DeviceBuffer<double> A, B, C;
};

// The same around a launcher (a variant of matmult_f, the tests).
void matmult_on_device(int m, int n, int k, const double* A, const double* B, double* C, MatmulLaunch launch);

// gpu8's plan for a shape, which gpu9 makes for its pieces before its pipeline starts: a tile
// shape of gpu8's (0: gpu7's 128x128, 1: 128x64, 2: 64x64), rows of tiles computed whole, k of
// the rest in shares, or stream-K. gpu8_plan chooses it (the first call of a shape times the
// candidates on these buffers, writing C); gpu8_launch enqueues its kernels on `stream`.
struct MatmulPlan {
  int tiles = 0;
  int whole_rows = 0;     // rows of tiles computed with the whole of k, in a launch of their own
  int shares = 1;         // the rows after them: k cut into this many shares of whole k-tiles
  bool stream_k = false;  // instead: one launch of resident blocks, equal runs of all the k-tiles
  double seconds = 0;     // the model's time for it
};
MatmulPlan gpu8_plan(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream);
void gpu8_launch(const MatmulPlan& plan, int m, int n, int k, const double* A, const double* B, double* C,
                 cudaStream_t stream);
// gpu8 on device buffers: the plan, then its launch (also gpu9's launch on device buffers, where
// there is no copy to overlap).
void gpu8_plan_and_launch(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream);
