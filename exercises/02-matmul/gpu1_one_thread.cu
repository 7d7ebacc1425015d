// Exercise skeleton generated from solutions/02-matmul/gpu1_one_thread.cu by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// matmul gpu1: one GPU thread.
//   run:  build-ex/chapters/02-matmul/matmult_f gpu1 128 128 128
//   test: meson test -C build-ex matmul-gpu1 --print-errorlogs
// One GPU thread, <<<1,1>>>, running the CPU loop. Slow on purpose: it proves the allocation,
// copies and launch are right before any parallelism is added.
// What limits it: one thread of thousands; each multiply-add waits for the last.
#include "check.h"
#include "matmul.h"

namespace {

__global__ void single_thread(int m, int n, int k, const double* A, const double* B, double* C) {
  // TODO(exercise): the whole product in this one thread: every C(i, j) = sum over l of A(i, l) B(l, j)
}

void launch(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  single_thread<<<1, 1, 0, stream>>>(m, n, k, A, B, C);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

extern "C" void matmult_gpu1(int m, int n, int k, double* A, double* B, double* C) {
  DeviceProduct on_gpu(m, n, k, A, B);
  launch(m, n, k, on_gpu.A.get(), on_gpu.B.get(), on_gpu.C.get(), nullptr);
  on_gpu.copy_c_to(C);
}

const MatmulCode matmul_gpu1{matmult_gpu1, launch};
