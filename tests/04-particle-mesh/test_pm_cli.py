#!/usr/bin/env python3
"""The part2data and force programs' command lines: bad arguments end with exit 2 and one
stderr line; --help works; small CPU-only runs print their tables and pass their checks.

Usage: test_pm_cli.py PART2DATA FORCE
"""
import subprocess
import sys

part2data, force = sys.argv[1], sys.argv[2]
failures = []


def run(program, *args):
    return subprocess.run([program, *args], capture_output=True, text=True, timeout=120)


bad = {
    part2data: (["--particles", "0"], ["--particles", "x"], ["--particles", str(2**29 + 1)], ["--mesh", "0"],
                ["--mesh", "1025"], ["--stage", "gpu9"], ["--stage", ""], ["--block", "1025"], ["--streams", "0"],
                ["--chunks", "-1"], ["--bogus"], ["--csv", "--json"], ["--streams", "3"], ["--chunks=7"],
                ["--stage", "cpu,"], ["--stage", "cpu,cpu"]),
    force: (["--size", "3"], ["--size", "1"], ["--size", "2048"], ["--size", "abc"], ["--axis", "w"], ["--axis", ""],
            ["--strip", "3"], ["--strip", "256"], ["--stage", "gpu3"], ["--repeats", "0"], ["--bogus"]),
}
for program, cases in bad.items():
    name = program.rsplit("/", 1)[-1]
    for args in cases:
        r = run(program, *args)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 2 or len(lines) != 1 or not lines[0].startswith(f"{name}: error: "):
            failures.append(f"{name} {args}: exit {r.returncode}, stderr {r.stderr!r}")
    if run(program, "--help").returncode != 0:
        failures.append(f"{name} --help failed")

r = run(part2data, "--particles", "100003", "--mesh", "37", "--stage", "cpu,cpu_omp", "--cpu-repeats", "1", "--csv")
if r.returncode != 0 or r.stdout.count("\n") != 3 or ",ok" not in r.stdout:
    failures.append(f"part2data CPU run: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")
r = run(force, "--size", "32", "--stage", "cpu,cpu_omp", "--cpu-repeats", "1", "--csv")
if r.returncode != 0 or r.stdout.count("\n") != 7 or "FAIL" in r.stdout:
    failures.append(f"force CPU run: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")
for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
