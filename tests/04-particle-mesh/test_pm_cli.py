#!/usr/bin/env python3
"""The part2data and force programs' command lines: bad arguments end with exit 2 and one
stderr line; --help works; each bounded option accepts its limits and refuses one step past
each; small CPU-only runs print their tables and pass their checks.

Usage: test_pm_cli.py PART2DATA FORCE
"""
import csv
import io
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # tests/
from cli_limits import FORMATS, Limits  # noqa: E402

part2data, force = sys.argv[1], sys.argv[2]
failures = []


def run(program, *args):
    return subprocess.run([program, *args], capture_output=True, text=True, timeout=120)


bad = {
    part2data: (["--particles", "0"], ["--particles", "x"], ["--particles", str(2**29 + 1)], ["--mesh", "0"],
                ["--mesh", "1025"], ["--stage", "no_such_stage"], ["--stage", ""], ["--block", "1025"], ["--streams", "0"],
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

# The cpu stage is the reference the others are checked against: its row must not claim "ok"
# (compared with itself, an unsolved skeleton of it would).
r = run(part2data, "--particles", "100003", "--mesh", "37", "--stage", "cpu,cpu_omp", "--cpu-repeats", "1", "--csv")
checks = [row["check"] for row in csv.DictReader(io.StringIO(r.stdout))]
if r.returncode != 0 or checks != ["reference (its test checks it)", "ok"]:
    failures.append(f"part2data CPU run: exit {r.returncode}, checks {checks}, {r.stdout!r} {r.stderr!r}")
r = run(force, "--size", "32", "--stage", "cpu,cpu_omp", "--cpu-repeats", "1", "--csv")
checks = [row["check"] for row in csv.DictReader(io.StringIO(r.stdout))]
if r.returncode != 0 or checks != ["reference (its test checks it)", "ok"] * 3:
    failures.append(f"force CPU run: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")

limits = Limits()  # tests/cli_limits.py: each limit accepted, one step past it refused


# part2data's limits, stated here (--help does not).
INT_MAX = 2**31 - 1
for option, low, high in (("--particles", 1, 2**29), ("--mesh", 1, 1024), ("--block", 0, 1024), ("--repeats", 1, 1000),
                          ("--cpu-repeats", 1, 1000), ("--streams", 1, 64), ("--chunks", 1, 4096), ("--seed", 0, INT_MAX)):
    limits.check_option(part2data, option, low, high)
# force's: --size and --strip as --help states them (powers of two from 2 to 1024, up to 128),
# the others here. Past a limit of a power of two: the next whole number and the next power.
force_help = run(force, "--help").stdout
size = re.search(r"--size N\s.*a power of two from (\d+) to (\d+)", force_help)
strip = re.search(r"--strip S\s.*a power of two up to (\d+)", force_help)
if not size or not strip:
    limits.failures.append(f"force --help no longer states --size's and --strip's limits as the test reads them:\n{force_help}")
else:
    for option, low, high in (("--size", int(size[1]), int(size[2])), ("--strip", 1, int(strip[1]))):  # 1 = 2^0
        limits.check(force, option, [low, high], [low - 1, high + 1, 2 * high], lambda v, o=option: [o, v, *FORMATS])
for option, low, high in (("--repeats", 1, 1000), ("--cpu-repeats", 1, 1000), ("--seed", 0, INT_MAX)):
    limits.check_option(force, option, low, high)
failures += limits.summary()

for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
