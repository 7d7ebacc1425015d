// matmul lib: OpenBLAS dgemm, all cores.
//   run:  build/chapters/02-matmul/matmult_f lib 2048 2048 2048
//   test: meson test -C build matmul-lib --print-errorlogs
// OpenBLAS's DGEMM on all CPU cores, the CPU's best. Row-major is passed as such.
#include <cblas.h>

#include "matmul.h"

extern "C" void matmult_lib(int m, int n, int k, double* A, double* B, double* C) {
  // EXERCISE: C = 1 * A B + 0 * C with cblas_dgemm, row-major, no transposes
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, A, k, B, n, 0.0, C, n);
}

const MatmulCode matmul_lib{matmult_lib};
