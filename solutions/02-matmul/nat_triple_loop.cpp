// matmul nat: CPU triple loop, 1 core.
//   run:  build/chapters/02-matmul/matmult_f nat 500 500 500
//   test: meson test -C build matmul-nat --print-errorlogs
// The plain triple loop on one CPU core, the "natural" order (i, j, then the sum over l). The
// correctness baseline of the course.
// What limits it: the inner loop walks B down a column, one cache line per multiply-add.
#include "matmul.h"

extern "C" void matmult_nat(int m, int n, int k, double* A, double* B, double* C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      // EXERCISE: C(i, j) = sum over l of A(i, l) B(l, j), row-major
      double sum = 0;
      for (int l = 0; l < k; ++l) sum += A[size_t(i) * k + l] * B[size_t(l) * n + j];
      C[size_t(i) * n + j] = sum;
    }
}

const MatmulCode matmul_nat{matmult_nat};
