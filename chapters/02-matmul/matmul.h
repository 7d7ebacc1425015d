// Chapter 02-matmul: C = A B in double, with the DTU 02614 course's interface. Row-major;
// A is m x k, B is k x n, C is m x n; the matmult_TYPE functions take host pointers and each
// GPU version allocates, copies in, computes, copies out, as in the course.
#pragma once
#include <cuda_runtime.h>

#include <vector>

#include "device.h"

using tut::blocks_for;  // the stages size their grids with it

extern "C" {
void matmult_nat(int m, int n, int k, double* A, double* B, double* C);
void matmult_lib(int m, int n, int k, double* A, double* B, double* C);
void matmult_gpu1(int m, int n, int k, double* A, double* B, double* C);
void matmult_gpu2(int m, int n, int k, double* A, double* B, double* C);
void matmult_gpu3(int m, int n, int k, double* A, double* B, double* C);
void matmult_gpu3r(int m, int n, int k, double* A, double* B, double* C);
void matmult_gpu4(int m, int n, int k, double* A, double* B, double* C);
void matmult_gpu5(int m, int n, int k, double* A, double* B, double* C);
void matmult_gpulib(int m, int n, int k, double* A, double* B, double* C);
}

// The shared launcher signature of the GPU stages: device pointers, C = A B enqueued on stream.
using MatmulLaunch = void (*)(int m, int n, int k, const double* A, const double* B, double* C,
                              cudaStream_t stream);
using MatmulHostCall = void (*)(int m, int n, int k, double* A, double* B, double* C);

struct MatmulStage {
  const char* name;       // the course's TYPE: "gpu2"
  const char* idea;       // the stage's one change
  MatmulHostCall host;    // the course's function (nullptr for sweep-only variants)
  MatmulLaunch device;    // nullptr for CPU stages
  const char* source;     // the file that holds it
};

#define MATMUL_STAGE_FILE(file) TUT_KERNELS_DIR "/02-matmul/" file

extern const MatmulStage matmul_nat, matmul_lib, matmul_gpu1, matmul_gpu2, matmul_gpu3, matmul_gpu3r,
    matmul_gpu4, matmul_gpu5, matmul_gpulib;
extern const MatmulStage matmul_gpu4_e2, matmul_gpu4_e8, matmul_gpu4_e16;  // the sweep over elements per thread

// Every type in lesson order; and the gpu4 sweep (2, 4, 8, 16 elements per thread).
const std::vector<const MatmulStage*>& matmul_stages();
const std::vector<const MatmulStage*>& matmul_gpu4_sweep();
const MatmulStage* find_matmul_stage(const char* name);  // nullptr when unknown

// What every GPU type of the course does around its kernel: allocate, copy A and B in,
// launch, copy C out, free.
void matmult_on_device(int m, int n, int k, const double* A, const double* B, double* C, MatmulLaunch launch);
