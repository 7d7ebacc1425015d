// Exercise skeleton generated from solutions/02-matmul/lib_openblas.cpp by tools/make_exercises.py:
// write the lines each TODO asks for, then build and run this stage's tests.
// matmul lib: OpenBLAS dgemm, all cores.
//   run:  build-ex/chapters/02-matmul/matmult_f lib 2048 2048 2048
//   test: meson test -C build-ex matmul-lib --print-errorlogs
// OpenBLAS's DGEMM on all CPU cores, the CPU's best. Row-major is passed as such.
#include <cblas.h>

#include "matmul.h"

extern "C" void matmult_lib(int m, int n, int k, double* A, double* B, double* C) {
  // TODO(exercise): C = 1 * A B + 0 * C with cblas_dgemm, row-major, no transposes
}

const MatmulCode matmul_lib{matmult_lib};
