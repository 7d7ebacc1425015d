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


if mode == "--gpu":
    check_line("gpu2", 37, 41, 43)
    check_line("gpu4_8", 37, 41, 43)
    check_line("gpu7", 37, 41, 43, may_be_unable=True)  # FP64 tensor cores: compute capability 8.0+
else:
    check_line("nat", 37, 41, 43)
    check_line("lib", 64, 32, 16)
    r = check_line("nat", 2, 3, 4, env={**QUICK, "MATMULT_RESULTS": "1"})
    if r and not all(f"{name} =" in r.stdout for name in "ABC"):
        failures.append("MATMULT_RESULTS=1 did not print A, B and C")
    r = check_line("nat", 5, 5, 5, env={**QUICK, "MATMULT_COMPARE": "0"})
    if r and " 0.000000e+00 # " not in r.stdout:
        failures.append("MATMULT_COMPARE=0 should print an error of 0 (not compared)")
    r = run(["lib", "8", "8", "8"], MFLOPS_MIN_T="0.2")  # repeats until 0.2 s have passed
    if r.returncode != 0:
        failures.append("MFLOPS_MIN_T=0.2 failed")
    for args, env in ((["gpu9", "4", "4", "4"], {}), (["nat", "-1", "4", "4"], {}), (["nat", "4", "x", "4"], {}),
                      (["nat", "4", "4"], {}), (["nat", "4", "4", "4"], {"MFLOPS_MIN_T": "-1"}),
                      (["nat", "4", "4", "4"], {"MFLOPS_MAX_IT": "abc"})):
        r = run(args, **env)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 2 or len(lines) != 1:
            failures.append(f"{args} {env}: exit {r.returncode}, stderr {r.stderr!r}")
    if run(["--help"]).returncode != 0:
        failures.append("--help failed")

for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
