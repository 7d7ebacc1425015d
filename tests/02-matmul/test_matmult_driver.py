#!/usr/bin/env python3
"""The course driver matmult_f: its output line, its environment variables, its arguments.

  test_matmult_driver.py MATMULT_F --cpu   types nat and lib; bad arguments (no GPU needed)
  test_matmult_driver.py MATMULT_F --gpu   gpu2, gpu7 and a variant through the driver (exit 77
                                           without a GPU; gpu7 may say it cannot run on this one)
"""
import os
import re
import subprocess
import sys

driver, mode = sys.argv[1], sys.argv[2]
LINE = re.compile(r"^\s*(\d+\.\d{3})\s+(\d+\.\d{3})\s+(\S+) # matmult_(\w+)$")
QUICK = {"MFLOPS_MIN_T": "0", "MFLOPS_MAX_IT": "1"}
failures = []


def run(args, **env):
    return subprocess.run([driver, *args], capture_output=True, text=True, timeout=120, env={**os.environ, **env})


def check_line(type_, m, n, k, env=QUICK, max_error=1e-12, may_be_unable=False):
    r = run([type_, str(m), str(n), str(k)], **env)
    if r.returncode == 77 and may_be_unable:
        print(f"{type_} not checked:", r.stderr.strip())
        return None
    if r.returncode == 77:
        print("skipped:", r.stderr.strip())
        sys.exit(77)
    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    match = LINE.match(last)
    if r.returncode != 0 or not match:
        failures.append(f"{type_} {m} {n} {k}: exit {r.returncode}, output {r.stdout!r} {r.stderr!r}")
        return None
    memory_kb, mflops, error, name = float(match[1]), float(match[2]), float(match[3]), match[4]
    if abs(memory_kb - 8 * (m * k + k * n + m * n) / 1024) > 1e-3:
        failures.append(f"{type_}: memory {memory_kb} kB, expected 8 (mk + kn + mn) / 1024")
    if name != type_ or not mflops > 0 or not error <= max_error:
        failures.append(f"{type_}: line {last!r}")
    return r


def printed_matrices(text):
    """{name: rows} of the matrices MATMULT_RESULTS=1 prints ("A =" then rows of numbers)."""
    matrices, name = {}, None
    for line in text.splitlines():
        if line.strip().endswith("=") and len(line.split()) == 2:
            name = line.split()[0]
            matrices[name] = []
        elif name and line.strip() and "#" not in line:
            matrices[name].append([float(v) for v in line.split()])
    return matrices


def check_against_python(type_, m, n, k):
    """The driver's own error column compares with OpenBLAS, which cannot check lib itself: here
    C is checked against a product computed in Python from the printed A and B."""
    r = run([type_, str(m), str(n), str(k)], **QUICK, MATMULT_RESULTS="1")
    got = printed_matrices(r.stdout)
    if r.returncode != 0 or set(got) != {"A", "B", "C"}:
        failures.append(f"{type_}: MATMULT_RESULTS=1 did not print A, B and C (exit {r.returncode})")
        return
    A, B, C = got["A"], got["B"], got["C"]
    # The printed values have 6 decimals: each of the k products is off by at most ~1e-6.
    worst = max(abs(C[i][j] - sum(A[i][l] * B[l][j] for l in range(k))) for i in range(m) for j in range(n))
    if worst > 1e-5 * k:
        failures.append(f"{type_} {m}x{n}x{k}: C differs from A B computed in Python by {worst:.3g}")


if mode == "--gpu":
    check_line("gpu2", 37, 41, 43)
    check_line("gpu4_8", 37, 41, 43)
    check_line("gpu7", 37, 41, 43, may_be_unable=True)  # FP64 tensor cores: compute capability 8.0+
else:
    check_line("nat", 37, 41, 43)
    check_line("lib", 64, 32, 16)
    check_against_python("lib", 7, 5, 6)
    check_against_python("nat", 3, 4, 9)
    r = check_line("nat", 5, 5, 5, env={**QUICK, "MATMULT_COMPARE": "0"})
    if r and " 0.000000e+00 # " not in r.stdout:
        failures.append("MATMULT_COMPARE=0 should print an error of 0 (not compared)")
    r = run(["lib", "8", "8", "8"], MFLOPS_MIN_T="0.2")  # repeats until 0.2 s have passed
    if r.returncode != 0:
        failures.append("MFLOPS_MIN_T=0.2 failed")
    for args, env in ((["gpu9", "4", "4", "4"], {}), (["nat", "-1", "4", "4"], {}), (["nat", "4", "x", "4"], {}),
                      (["nat", "4", "4"], {}), (["nat", "4", "4", "4"], {"MFLOPS_MIN_T": "-1"}),
                      (["nat", "4", "4", "4"], {"MFLOPS_MAX_IT": "abc"}),
                      (["nat", "4", "4", "4"], {"MFLOPS_MIN_T": "inf"}), (["nat", "4", "4", "4"], {"MFLOPS_MIN_T": "1e9"}),
                      (["nat", "4", "4", "4"], {"MFLOPS_MIN_T": ""}), (["nat", "4", "4", "4"], {"MATMULT_RESULTS": "2"}),
                      (["nat", "4", "4", "4"], {"MATMULT_COMPARE": "0.5"}),
                      (["nat", "1000000", "1000000", "10"], {})):  # 15 TiB of matrices: more than the host has
        r = run(args, **env)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 2 or len(lines) != 1:
            failures.append(f"{args} {env}: exit {r.returncode}, stderr {r.stderr!r}")
    for args in (["--help"], ["nat", "4", "4", "4", "--help"]):
        r = run(args)
        if r.returncode != 0 or "usage: matmult_f" not in r.stdout:
            failures.append(f"{args}: exit {r.returncode}, no usage printed")

for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
