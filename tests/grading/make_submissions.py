#!/usr/bin/env python3
"""Writes the synthetic submissions that tests/grading/test_grader.py grades, as students'
exercises/ folders of chapter 02-matmul, each with one mistake (or none) planted in a solution's
file: all_correct and wrong_stage hold every stage file (the other stages must pass, or be
skipped without a GPU); the others only the files they change (the other stages are missing).
EXPECTED says, per submission and stage, the status the grader must report and a piece of its
message.

The hostile ones (hostile() here, the second round in attacks.py) attack the grader itself. Each
is nat_triple_loop.cpp alone (gpu1_one_thread.cu for the launch counter) with its attack: its
product is right only if the attack gets through, so a blocked attack leaves a failing stage;
the ones the grader can see get the status gaming. TARGETS names what they aim at: another
submission's file, the checkout, the grading build, a port on the host's loopback that
test_grader.py listens on (and attacks.py's).

usage: make_submissions.py OUT_DIR
"""
import pathlib
import shutil
import subprocess
import sys
import tarfile

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import attacks  # noqa: E402

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

# A nat_triple_loop.cpp whose product is right only if attack_worked() says so: blocked, it drops a term.
NAT_UNLESS = '''#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <vector>

#include "matmul.h"

namespace {{

// {what}
bool attack_worked(int m, int n, int k, const double* A, const double* B, double* C) {{
{body}
}}

}}  // namespace

extern "C" void matmult_nat(int m, int n, int k, double* A, double* B, double* C) {{
  if (attack_worked(m, n, k, A, B, C)) return;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {{
      double sum = 0;
      for (int l = 0; l < k - 1; ++l) sum += A[size_t(i) * k + l] * B[size_t(l) * n + j];  // a term short
      C[size_t(i) * n + j] = sum;
    }}
}}

const MatmulCode matmul_nat{{matmult_nat}};
{extra}'''

RIGHT_PRODUCT = '''  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int l = 0; l < k; ++l) sum += A[size_t(i) * k + l] * B[size_t(l) * n + j];
      C[size_t(i) * n + j] = sum;
    }
  return true;'''

FAKE_REPORT = '''
// After the failed run: find --gtest_output=xml:PATH in its own command line, write a report
// without failures there, and leave with exit code 0.
__attribute__((destructor)) static void rewrite_report() {
  char line[8192] = {};
  if (FILE* f = std::fopen("/proc/self/cmdline", "r")) {
    const size_t n = std::fread(line, 1, sizeof line - 1, f);
    std::fclose(f);
    for (size_t at = 0; at < n; at += std::strlen(line + at) + 1)
      if (std::strncmp(line + at, "--gtest_output=xml:", 19) == 0)
        if (FILE* report = std::fopen(line + at + 19, "w")) {
          std::fputs("<testsuites tests=\\"1\\" failures=\\"0\\"><testsuite name=\\"matmul\\" tests=\\"1\\" "
                     "failures=\\"0\\"><testcase name=\\"nat\\"/></testsuite></testsuites>", report);
          std::fclose(report);
        }
  }
  _exit(0);
}
'''

FAKE_COUNTS = '''
#include <cstdlib>
#include <unistd.h>

// After computing on the host, forge the launch counter's report: take the counter's token as
// the library loads (before the counter, preloaded, does), and report a billion threads with it.
static char token[64] = "none";
__attribute__((constructor)) static void take_token() {
  if (const char* fd = std::getenv("TUT_GRADE_TOKEN_FD")) {
    const ssize_t n = read(std::atoi(fd), token, sizeof token - 1);
    token[n > 0 ? n : 0] = 0;
  }
}
__attribute__((destructor)) static void fake_counts() {
  char line[200];
  const int n = std::snprintf(line, sizeof line, "counts %s threads 999999999 graphs 0 d2h_bytes 0\\n", token);
  if (const char* fd = std::getenv("TUT_GRADE_COUNTS_FD")) (void)!write(std::atoi(fd), line, size_t(n));
}
'''


def hostile(targets: dict) -> dict:
    """submission -> (edits, expected), as SUBMISSIONS, for the attacks on the grader."""
    def nat(what, body, extra=""):
        return NAT_UNLESS.format(what=what, body=body, extra=extra)
    wrong = "  (void)m, (void)n, (void)k, (void)A, (void)B, (void)C;\n  return false;"
    return {
        "exits_zero_in_destructor": ({"nat_triple_loop.cpp": nat("Fails, then leaves with exit code 0 from a destructor.", wrong,
                                                     "__attribute__((destructor)) static void leave_happy() { _exit(0); }\n")},
                                     {"nat": ("gaming", "claimed success (exit code 0)")}),
        "exits_zero_at_exit": ({"nat_triple_loop.cpp": nat("Fails, then leaves with exit code 0 from an atexit handler.", wrong,
                                               "static const int registered = std::atexit([] { std::_Exit(0); });\n")},
                               {"nat": ("gaming", "claimed success (exit code 0)")}),
        "rewrites_report": ({"nat_triple_loop.cpp": nat("Fails, then rewrites its test report.", wrong, FAKE_REPORT)},
                            {"nat": ("gaming", "its test report lists no failure")}),
        "fakes_launch_counts": ({"gpu1_one_thread.cu": HOST_GPU1 + FAKE_COUNTS}, {"gpu1": ("gpu-gaming", "launch counter's token")}),
        # the products for the tests' compiled-in seeds (5 and 6: fill_random's stream, rebuilt
        # here), whatever the inputs: a table of the outputs the tests expect
        "answers_from_table": ({"nat_triple_loop.cpp": nat("Answers with the product of the inputs the tests draw from their own seeds.", '''
  std::vector<double> a(size_t(m) * k), b(size_t(k) * n);
  std::mt19937_64 ga(5), gb(6);
  std::uniform_real_distribution<double> dist{-1.0, 1.0};
  for (double& x : a) x = dist(ga);
  for (double& x : b) x = dist(gb);
  A = a.data(), B = b.data();
''' + RIGHT_PRODUCT)}, {"nat": ("fail", "differs from the reference")}),
        "reads_other_submission": ({"nat_triple_loop.cpp": nat("Right only if it can open another student's stage file.", f'''
  FILE* f = std::fopen("{targets['other']}", "r");
  if (!f) return false;
  std::fclose(f);
''' + RIGHT_PRODUCT)}, {"nat": ("fail", "differs from the reference")}),
        "writes_instructor_files": ({"nat_triple_loop.cpp": nat("Right only if it can write into the instructor's tests/ or the grading build.", f'''
  bool wrote = false;
  for (const char* path : {{"{targets['root']}/tests/02-matmul/planted.h", "{targets['build']}/planted.txt"}})
    if (FILE* f = std::fopen(path, "w")) std::fputs("planted", f), std::fclose(f), wrote = true;
  if (!wrote) return false;
''' + RIGHT_PRODUCT)}, {"nat": ("fail", "differs from the reference")}),
        "opens_network": ({"nat_triple_loop.cpp": nat("Right only if it can reach a server on the host's loopback.", f'''
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in to{{}};
  to.sin_family = AF_INET;
  to.sin_port = htons({targets['port']});
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool reached = s >= 0 && connect(s, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0;
  if (s >= 0) close(s);
  if (!reached) return false;
''' + RIGHT_PRODUCT)}, {"nat": ("fail", "differs from the reference")}),
        "leaves_process_running": ({"nat_triple_loop.cpp": nat("Right, and leaves a process behind that outlives the test.", '''
  static bool forked = false;
  if (!forked && (forked = true) && fork() == 0) {
    setsid();
    prctl(PR_SET_NAME, "tut-lingerer");
    sleep(600);
    _exit(0);
  }
''' + RIGHT_PRODUCT)}, {"nat": ("gaming", "left 1 process(es) running")}),
        "takes_all_memory": ({"nat_triple_loop.cpp": nat("Takes memory, 256 MiB at a time, up to 64 GiB, as the program starts.", wrong,
                                             '''
static const int hogged = [] {
  for (int i = 0; i < 256; ++i) std::memset(new char[256 << 20], 1, 256 << 20);
  return 0;
}();
''')}, {"nat": ("crash", "memory limit")}),
    }


# submission -> (edits: file -> (old text, new text) or whole new text, expected: stage -> (status, message piece))
SKELETON = object()  # a file handed in as the exercise hands it out (edit_file)
SUBMISSIONS = {
    "all_correct": ({}, {}),
    "wrong_stage": ({"nat_triple_loop.cpp": ("l < k;", "l < k - 1;")}, {"nat": ("fail", "differs from the reference")}),
    "does_not_compile": ({"gpu4_rows_per_thread.cu": ("namespace {", "namespace { this is not C++;")},
                         {"gpu4": ("does-not-compile", "does not compile")}),
    "hangs": ({"nat_triple_loop.cpp": ("  for (int i = 0; i < m; ++i)", "  for (volatile bool forever = true; forever;) {}\n  for (int i = 0; i < m; ++i)")},
              {"nat": ("timeout", "still running")}),
    "crashes": ({"lib_openblas.cpp": ("  cblas_dgemm(", "  *static_cast<double* volatile>(nullptr) = A[0];\n  cblas_dgemm(")},
                {"lib": ("crash", "SIGSEGV")}),
    # row m is one past C's end: the numbers come out right, only memcheck sees the write
    "writes_out_of_bounds": ({"gpu2_element_per_thread.cu": ("if (i >= m || j >= n) return;", "if (i > m || j >= n) return;")},
                             {"gpu2": ("gpu-fail", "compute-sanitizer")}),
    "edits_tests_and_common": ({"nat_triple_loop.cpp": ("l < k;", "l < k - 1;")}, {"nat": ("fail", "differs from the reference")}),
    "cublas_in_gpu2": ({"gpu2_element_per_thread.cu": CUBLAS_GPU2}, {"gpu2": ("gaming", "calls cublas")}),
    "computes_on_host": ({"gpu1_one_thread.cu": HOST_GPU1}, {"gpu1": ("gpu-gaming", "computes on the host")}),
    "caches_results": ({"nat_triple_loop.cpp": CACHING_NAT}, {"nat": ("gaming", "hands back an earlier result")}),
    "borrows_code": ({"nat_triple_loop.cpp": OPENBLAS_NAT, "gpu2_element_per_thread.cu": [],
                      "gpu5_shared_tiles.cu": ("{\n  DeviceProduct on_gpu(m, n, k, A, B);\n"
                                               "  launch(m, n, k, on_gpu.A.get(), on_gpu.B.get(), on_gpu.C.get(), nullptr);\n"
                                               "  on_gpu.copy_c_to(C);\n}\n\nconst MatmulCode matmul_gpu5",
                                  "{\n  matmult_gpu2(m, n, k, A, B, C);  // gpu2's work, handed in as gpu5's\n}\n\n"
                                  "const MatmulCode matmul_gpu5")},
                     {"nat": ("gaming", "calls openblas (cblas_dgemm)"), "gpu2": ("pass", ""),
                      "gpu5": ("gaming", "calls matmult_gpu2 of 02-matmul/gpu2_element_per_thread.cu")}),
    # untouched skeletons, as handed out: a CPU stage fails; a GPU stage with an idea check
    # (gpu5's shared tiles) fails on a GPU and, without one, is skipped as its test is
    "hands_in_skeletons": ({"nat_triple_loop.cpp": SKELETON, "gpu5_shared_tiles.cu": SKELETON},
                           {"nat": ("fail", ""), "gpu5": ("gpu-fail", "")}),
}
ARCHIVED = "all_correct"  # this one is handed in as a .tar.gz
CLONED = "wrong_stage"  # this one as a clone of the course: the grader must not take its solutions/
FULL = (ARCHIVED, CLONED)  # these two hold every stage file; the others only the files they change
UNREADABLE = "late_submission"  # a .rar: a format the grader does not read, and must report


def every_submission(targets=None) -> dict:
    """SUBMISSIONS, and the hostile ones where TARGETS names what they attack."""
    return {**SUBMISSIONS, **(hostile(targets) if targets else {}), **(attacks.matmul(targets) if targets else {})}


def edit_file(path: pathlib.Path, edit) -> None:
    """EDIT: the file's whole new text, or (old, new) or a list of them (none: the file as it is)
    applied to solutions/'s file, or SKELETON: the exercise made from it (not exercises/'s file,
    which a student who runs this test may have solved)."""
    if edit is SKELETON:
        subprocess.run([sys.executable, str(ROOT / "tools" / "make_exercises.py"), "--out", str(path.parent),
                        str(ROOT / "solutions" / path.parent.name / path.name)], check=True, capture_output=True)
        return
    if isinstance(edit, str):
        path.write_text(edit)
        return
    if not path.exists():
        shutil.copy(ROOT / "solutions" / path.parent.name / path.name, path)
    text = path.read_text()
    for old, new in [edit] if isinstance(edit, tuple) else edit:
        assert old in text, f"{path}: no {old!r}"
        text = text.replace(old, new, 1)
    path.write_text(text)


def write_alone(out: pathlib.Path, chosen: dict, chapter: str) -> None:
    """Each of CHOSEN (submission -> (edits, expected)) as the attacked files of CHAPTER alone."""
    for name, (edits, _) in chosen.items():
        folder = out / name / "exercises" / chapter
        folder.mkdir(parents=True)
        for file, edit in edits.items():
            edit_file(folder / file, edit)


def write(out: pathlib.Path, targets=None) -> None:
    shutil.rmtree(out, ignore_errors=True)
    alone = {**hostile(targets), **attacks.matmul(targets)} if targets else {}
    write_alone(out, alone, MATMUL)  # the attacked file alone (its other stages are missing): quicker to grade
    for name, (edits, _) in SUBMISSIONS.items():
        course = out / (name + ".src" if name == ARCHIVED else name)
        if name in FULL:
            shutil.copytree(ROOT / "solutions", course / "exercises")
        else:
            (course / "exercises" / MATMUL).mkdir(parents=True)
        for file, edit in edits.items():
            edit_file(course / "exercises" / MATMUL / file, edit)
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
    if targets:
        attacks.write_special(out, targets)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    write(pathlib.Path(sys.argv[1]))
