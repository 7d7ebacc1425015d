#!/usr/bin/env python3
"""The part2data and force programs' command lines: bad arguments end with exit 2 and one
stderr line; --help works; each bounded option accepts its limits and refuses one step past
each; small CPU-only runs print their tables and pass their checks.

Usage: test_pm_cli.py PART2DATA FORCE
"""
import os
import re
import shlex
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

# --- the limits of every bounded option: each limit is accepted, one step past it is refused.
# A probe ends with --csv --json, which Cli::parse refuses only after it has read and checked
# every option: that line says the value was accepted, and the program stops there, before it
# allocates or computes anything (a limit such as --particles 2^29 never runs). A value past a
# limit must be refused before it, in one line naming its option.
FORMATS = ["--csv", "--json"]
FORMATS_LINE = "choose one of --csv and --json"
probes, bound_failures = 0, []


def check_bounds(program, label, accepted, refused, args_for, stop_line=FORMATS_LINE):
    """label: the option as its error line names it; args_for(value): the probe's arguments."""
    global probes
    name = os.path.basename(program)
    for value, accept in [(v, True) for v in accepted] + [(v, False) for v in refused]:
        probes += 1
        args = args_for(str(value))
        r = subprocess.run([program, *args], capture_output=True, text=True, timeout=60)
        lines = r.stderr.strip().splitlines()
        one = r.returncode == 2 and len(lines) == 1 and lines[0].startswith(f"{name}: error: ")
        line = lines[0] if one else ""
        if accept and stop_line not in line:
            bound_failures.append(f"{name} {shlex.join(args)}: {value} is a limit of {label}, but the parser did not "
                                  f"accept it (exit {r.returncode}, stderr {r.stderr!r})")
        elif not accept and (not re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-])", line) or stop_line in line):
            bound_failures.append(f"{name} {shlex.join(args)}: {value} is one step past a limit of {label}, but it was "
                                  f"not refused in one line naming {label} (exit {r.returncode}, stderr {r.stderr!r})")


def check_option(program, option, low, high, before=()):
    check_bounds(program, option, [low, high], [low - 1, high + 1], lambda v: [*before, option, v, *FORMATS])


# part2data's limits, stated here (--help does not).
INT_MAX = 2**31 - 1
for option, low, high in (("--particles", 1, 2**29), ("--mesh", 1, 1024), ("--block", 0, 1024), ("--repeats", 1, 1000),
                          ("--cpu-repeats", 1, 1000), ("--streams", 1, 64), ("--chunks", 1, 4096), ("--seed", 0, INT_MAX)):
    check_option(part2data, option, low, high)
# force's: --size and --strip as --help states them (powers of two from 2 to 1024, up to 128),
# the others here. Past a limit of a power of two: the next whole number and the next power.
force_help = run(force, "--help").stdout
size = re.search(r"--size N\s.*a power of two from (\d+) to (\d+)", force_help)
strip = re.search(r"--strip S\s.*a power of two up to (\d+)", force_help)
if not size or not strip:
    bound_failures.append(f"force --help no longer states --size's and --strip's limits as the test reads them:\n{force_help}")
else:
    for option, low, high in (("--size", int(size[1]), int(size[2])), ("--strip", 1, int(strip[1]))):  # 1 = 2^0
        check_bounds(force, option, [low, high], [low - 1, high + 1, 2 * high], lambda v, o=option: [o, v, *FORMATS])
for option, low, high in (("--repeats", 1, 1000), ("--cpu-repeats", 1, 1000), ("--seed", 0, INT_MAX)):
    check_option(force, option, low, high)
print(f"{probes - len(bound_failures)} of {probes} limits and steps past them handled as expected")
failures += bound_failures

for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
