#!/usr/bin/env python3
"""The heat driver heat3d's command line: --help works, and every bad argument ends the program
with exactly one line on stderr and exit code 2 (no crash, no hang, no GPU needed); each
bounded option accepts its limits and refuses one step past each."""
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # tests/
from cli_limits import FORMATS, Limits  # noqa: E402

heat = sys.argv[1]
BAD = [
    ["--nx", "-5"], ["--nx", "0"], ["--ny", "abc"], ["--nz", "70000"], ["--steps", "0"],
    ["--nx", "2"], ["--size", "2"],  # no interior cell to update
    ["--steps", "1.5"], ["--size", ""], ["--repeats", "-1"], ["--block", "64x8"],
    ["--block", "2048x1x1"], ["--block", "32x32x2"], ["--block", "0x1x1"], ["--stage", "no_such_stage"],
    ["--stage", "v1,,v2"], ["--bogus"], ["stray"], ["--csv", "--json"], ["--nx"],
    ["--nx", "2147483647", "--ny", "2"],  # more cells than 32-bit indices reach
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
help_text = run.stdout

print(f"{len(BAD) + 1 - len(failures)} of {len(BAD) + 1} command lines handled as expected")

limits = Limits()  # tests/cli_limits.py: each limit accepted, one step past it refused


# --help states every integer option's limits, "(LOW..HIGH, default D)": each is pinned as shown.
shown = {option: (int(low), int(high)) for option, low, high in re.findall(r"(--[\w-]+) N .*?\((\d+)\.\.(\d+)", help_text)}
expected = {"--nx", "--ny", "--nz", "--steps", "--repeats", "--cpu-steps", "--seed"}
if set(shown) != expected:
    failures.append(f"--help states the limits of {sorted(shown)}, not of {sorted(expected)}")
for option, (low, high) in shown.items():
    limits.check_option(heat, option, low, high)
axes = ("--nx", "--ny", "--nz")
if set(axes) <= set(shown):  # --size N is --nx N --ny N --nz N: what all three accept
    limits.check_option(heat, "--size", max(shown[a][0] for a in axes), min(shown[a][1] for a in axes))
# --block XxYxZ: x and y up to 1024, z up to 64, at most 1024 threads in all (CUDA's limits).
limits.check(heat, "--block", ["1x1x1", "1024x1x1", "1x1024x1", "1x1x64", "32x32x1", "4x4x64"],
             ["0x1x1", "1x0x1", "1x1x0", "1025x1x1", "1x1025x1", "1x1x65", "5x205x1"],
             lambda v: ["--block", v, *FORMATS])
failures += limits.summary()

for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
