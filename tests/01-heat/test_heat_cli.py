#!/usr/bin/env python3
"""The heat driver heat3d's command line: --help works, and every bad argument ends the program
with exactly one line on stderr and exit code 2 (no crash, no hang, no GPU needed)."""
import subprocess
import sys

heat = sys.argv[1]
BAD = [
    ["--nx", "-5"], ["--nx", "0"], ["--ny", "abc"], ["--nz", "70000"], ["--steps", "0"],
    ["--nx", "2"], ["--size", "2"],  # no interior cell to update
    ["--steps", "1.5"], ["--size", ""], ["--repeats", "-1"], ["--block", "64x8"],
    ["--block", "2048x1x1"], ["--block", "32x32x2"], ["--block", "0x1x1"], ["--stage", "v9"],
    ["--stage", "v1,,v2"], ["--bogus"], ["stray"], ["--csv", "--json"], ["--nx"],
    ["--nx", "2147483647", "--ny", "2"],  # more cells than 32-bit indices reach
    ["--stage", "v6", "--block", "2x8x1"],  # temporal blocking keeps its halo inside the block
    ["--stage", "v5", "--block", "32x16x1"],  # compiled for at most 256 threads per block
    ["--stage", "v0,"], ["--stage", "v1,v1"],  # a comma too many, a stage twice
    ["--stage", "v0", "--block", "32x4x1"],  # no GPU stage for the block to apply to
    ["--check", "--stage", "v0"],  # v0 is the reference: nothing to check
]

failures = []
for args in BAD:
    run = subprocess.run([heat, *args], capture_output=True, text=True, timeout=60)
    lines = run.stderr.strip().splitlines()
    if run.returncode != 2 or len(lines) != 1 or not lines[0].startswith("heat3d: error: "):
        failures.append(f"{args}: exit {run.returncode}, stderr {run.stderr!r}")

run = subprocess.run([heat, "--help"], capture_output=True, text=True, timeout=60)
if run.returncode != 0 or "usage: heat3d" not in run.stdout or "v5_scalar" not in run.stdout:
    failures.append(f"--help: exit {run.returncode}, stdout {run.stdout[:200]!r}")

for failure in failures:
    print("FAIL", failure)
print(f"{len(BAD) + 1 - len(failures)} of {len(BAD) + 1} command lines handled as expected")
sys.exit(1 if failures else 0)
