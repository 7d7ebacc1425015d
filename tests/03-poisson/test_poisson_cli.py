#!/usr/bin/env python3
"""The jacobi program's command line: bad arguments end with exit 2 and one stderr line;
--help works, with one usage line; a CPU run prints its table and writes a PGM image (no GPU needed)."""
import os
import subprocess
import sys
import tempfile

jacobi = sys.argv[1]
failures = []
for args in (["gpu9", "10", "10"], ["cpu", "0", "10"], ["cpu", "10", "-1"], ["cpu", "x", "10"], ["cpu", "10"],
             ["cpu", "10", "10", "-1e-3"], ["cpu", "10", "10", "abc"], ["multi", "10", "10", "1e-3"],
             ["cpu", "10", "10", "--parts", "0"], ["cpu", "10", "10", "--bogus"], ["cpu", "10", "10", "1", "2"],
             ["gpu2", "10", "10", "--parts", "2"],  # --parts is for the multi-GPU stages
             ["cpu", "10", "10", "--check-every", "5"],  # no tolerance to check
             ["cpu", "10", "10", "--pgm", ""], ["cpu", "10", "10", "--pgm", "/nonexistent-dir/u.pgm"]):
    r = subprocess.run([jacobi, *args], capture_output=True, text=True, timeout=60)
    lines = r.stderr.strip().splitlines()
    if r.returncode != 2 or len(lines) != 1 or not lines[0].startswith("jacobi: error: "):
        failures.append(f"{args}: exit {r.returncode}, stderr {r.stderr!r}")
shown = subprocess.run([jacobi, "--help"], capture_output=True, text=True, timeout=60)
if shown.returncode != 0:
    failures.append("--help failed")
if shown.stdout.count("usage:") != 1 or "(default 0)" in shown.stdout:  # one usage line; --parts says its default
    failures.append(f"--help: one usage line and --parts' default in words expected:\n{shown.stdout}")
with tempfile.TemporaryDirectory() as tmp:
    image = os.path.join(tmp, "u.pgm")
    r = subprocess.run([jacobi, "cpu", "30", "500", "1e-4", "--check-every", "50", "--pgm", image],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0 or "cpu" not in r.stdout:
        failures.append(f"cpu run: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")
    elif not open(image, "rb").read().startswith(b"P5\n32 32\n255\n"):
        failures.append("the PGM image lacks its header (32 x 32 with the boundary)")
for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
