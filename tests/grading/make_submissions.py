#!/usr/bin/env python3
"""Writes the synthetic submissions that tests/grading/test_grader.py grades: each one a copy of
solutions/ as a student's exercises/ folder, with one mistake (or none) planted in chapter
02-matmul. EXPECTED says, per submission and stage, the status the grader must report and a
piece of its message; the stages not named must pass (or be skipped without a GPU).

usage: make_submissions.py OUT_DIR
"""
import pathlib
import shutil
import sys
import tarfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
MATMUL = "02-matmul"

CUBLAS_GPU2 = '''#include <cublas_v2.h>

#include "check.h"
#include "matmul.h"

namespace {

// Not the stage's kernel: cuBLAS does the work (row-major C = A B is column-major C^T = B^T A^T).
void launch(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasSetStream(handle, stream);
  const double one = 1, zero = 0;
  cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &zero, C, n);
  cublasDestroy(handle);
}

}  // namespace

extern "C" void matmult_gpu2(int m, int n, int k, double* A, double* B, double* C) {
  matmult_on_device(m, n, k, A, B, C, launch);
}

const MatmulCode matmul_gpu2{matmult_gpu2, launch};
'''

HOST_GPU1 = '''#include <vector>

#include "check.h"
#include "matmul.h"

namespace {

// Not on the GPU: the operands come back to the host, the product is computed there and sent up.
void launch(int m, int n, int k, const double* A, const double* B, double* C, cudaStream_t stream) {
  std::vector<double> a(size_t(m) * k), b(size_t(k) * n), c(size_t(m) * n);
  cudaMemcpyAsync(a.data(), A, a.size() * sizeof(double), cudaMemcpyDeviceToHost, stream);
  cudaMemcpyAsync(b.data(), B, b.size() * sizeof(double), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int l = 0; l < k; ++l) sum += a[size_t(i) * k + l] * b[size_t(l) * n + j];
      c[size_t(i) * n + j] = sum;
    }
  cudaMemcpyAsync(C, c.data(), c.size() * sizeof(double), cudaMemcpyHostToDevice, stream);
  cudaStreamSynchronize(stream);
}

}  // namespace

extern "C" void matmult_gpu1(int m, int n, int k, double* A, double* B, double* C) {
  matmult_on_device(m, n, k, A, B, C, launch);
}

const MatmulCode matmul_gpu1{matmult_gpu1, launch};
'''

CACHING_NAT = '''#include <algorithm>
#include <vector>

#include "matmul.h"

// Computes once per m, n, k and hands the stored product back on later calls.
extern "C" void matmult_nat(int m, int n, int k, double* A, double* B, double* C) {
  static int seen_m = -1, seen_n = -1, seen_k = -1;
  static std::vector<double> stored;
  if (m != seen_m || n != seen_n || k != seen_k) {
    stored.assign(size_t(m) * n, 0.0);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        for (int l = 0; l < k; ++l) stored[size_t(i) * n + j] += A[size_t(i) * k + l] * B[size_t(l) * n + j];
    seen_m = m, seen_n = n, seen_k = k;
  }
  std::copy(stored.begin(), stored.end(), C);
}

const MatmulCode matmul_nat{matmult_nat};
'''

OPENBLAS_NAT = '''#include <cblas.h>

#include "matmul.h"

// The library's product, handed in as the hand-written loop.
extern "C" void matmult_nat(int m, int n, int k, double* A, double* B, double* C) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, A, k, B, n, 0.0, C, n);
}

const MatmulCode matmul_nat{matmult_nat};
'''

# submission -> (edits: file -> (old text, new text) or whole new text, expected: stage -> (status, message piece))
SUBMISSIONS = {
    "all_correct": ({}, {}),
    "wrong_stage": ({"nat.cpp": ("l < k;", "l < k - 1;")}, {"nat": ("fail", "differs from the reference")}),
    "does_not_compile": ({"gpu4.cu": ("namespace {", "namespace { this is not C++;")},
                         {"gpu4": ("does-not-compile", "does not compile")}),
    "hangs": ({"nat.cpp": ("  for (int i = 0; i < m; ++i)", "  for (volatile bool forever = true; forever;) {}\n  for (int i = 0; i < m; ++i)")},
              {"nat": ("timeout", "still running")}),
    "crashes": ({"lib.cpp": ("  cblas_dgemm(", "  *static_cast<double* volatile>(nullptr) = A[0];\n  cblas_dgemm(")},
                {"lib": ("crash", "SIGSEGV")}),
    # row m is one past C's end: the numbers come out right, only memcheck sees the write
    "writes_out_of_bounds": ({"gpu2.cu": ("if (i >= m || j >= n) return;", "if (i > m || j >= n) return;")},
                             {"gpu2": ("gpu-fail", "compute-sanitizer")}),
    "edits_tests_and_common": ({"nat.cpp": ("l < k;", "l < k - 1;")}, {"nat": ("fail", "differs from the reference")}),
    "cublas_in_gpu2": ({"gpu2.cu": CUBLAS_GPU2}, {"gpu2": ("gaming", "calls cublas")}),
    "computes_on_host": ({"gpu1.cu": HOST_GPU1}, {"gpu1": ("gpu-gaming", "computes on the host")}),
    "caches_results": ({"nat.cpp": CACHING_NAT}, {"nat": ("gaming", "hands back an earlier result")}),
    "borrows_code": ({"nat.cpp": OPENBLAS_NAT,
                      "gpu5.cu": ("{\n  matmult_on_device(m, n, k, A, B, C, launch);\n}\n\nconst MatmulCode matmul_gpu5",
                                  "{\n  matmult_gpu2(m, n, k, A, B, C);  // gpu2's work, handed in as gpu5's\n}\n\n"
                                  "const MatmulCode matmul_gpu5")},
                     {"nat": ("gaming", "calls openblas (cblas_dgemm)"),
                      "gpu5": ("gaming", "calls matmult_gpu2 of 02-matmul/gpu2.cu")}),
}
ARCHIVED = "all_correct"  # this one is handed in as a .tar.gz
CLONED = "wrong_stage"  # this one as a clone of the course: the grader must not take its solutions/
UNREADABLE = "late_submission"  # a .rar: a format the grader does not read, and must report


def write(out: pathlib.Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    for name, (edits, _) in SUBMISSIONS.items():
        course = out / (name + ".src" if name == ARCHIVED else name)
        shutil.copytree(ROOT / "solutions", course / "exercises")
        for file, edit in edits.items():
            path = course / "exercises" / MATMUL / file
            if isinstance(edit, tuple):
                text = path.read_text()
                assert edit[0] in text, f"{name}: {file} has no {edit[0]!r}"
                path.write_text(text.replace(edit[0], edit[1], 1))
            else:
                path.write_text(edit)
        if name == "edits_tests_and_common":  # loosened checks a student hands in: ignored
            for rel in ("tests/02-matmul/matmul_test_support.h", "common/validate.cpp"):
                (course / rel).parent.mkdir(parents=True, exist_ok=True)
                (course / rel).write_text((ROOT / rel).read_text() + "\n// loosened: every comparison passes\n")
        if name == CLONED:
            shutil.copytree(ROOT / "solutions", course / "solutions")
        if name == ARCHIVED:
            with tarfile.open(out / f"{name}.tar.gz", "w:gz") as t:
                t.add(course, arcname=name)
            shutil.rmtree(course)
    (out / f"{UNREADABLE}.rar").write_bytes(b"Rar!\x1a\x07\x00 not read by the grader")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    write(pathlib.Path(sys.argv[1]))
