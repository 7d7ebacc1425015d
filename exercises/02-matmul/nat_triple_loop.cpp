// Exercise skeleton generated from solutions/02-matmul/nat_triple_loop.cpp by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// matmul nat: CPU triple loop, 1 core.
//   run:  build-ex/chapters/02-matmul/matmult_f nat 500 500 500
//   test: meson test -C build-ex matmul-nat --print-errorlogs
// The plain triple loop on one CPU core, the "natural" order (i, j, then the sum over l). The
// correctness baseline of the course.
// What limits it: the inner loop walks B down a column, one cache line per multiply-add.
#include "matmul.h"

extern "C" void matmult_nat(int m, int n, int k, double* A, double* B, double* C) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      // TODO(exercise): C(i, j) = sum over l of A(i, l) B(l, j), row-major
    }
}

const MatmulCode matmul_nat{matmult_nat};
