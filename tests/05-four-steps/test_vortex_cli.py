#!/usr/bin/env python3
"""The vortex program's command line: bad arguments end with exit 2 and one stderr line;
--help works; each bounded option accepts its limits and refuses one step past each; a small
CPU-only run prints its table and passes its check, saying on stderr which stage it times;
VORTEX_SKELETONS (vortex built from the exercises' skeletons), where given: a stage that fails
its check is reported and not timed.

Usage: test_vortex_cli.py VORTEX [VORTEX_SKELETONS]
"""
import csv
import io
import math
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # tests/
from cli_limits import FORMATS, Limits  # noqa: E402

vortex = sys.argv[1]
failures = []


def run(*args, program=vortex):
    return subprocess.run([program, *args], capture_output=True, text=True, timeout=300)


bad = (["--size", "3"], ["--size", "4x3"], ["--size", "46001"], ["--size", "abc"], ["--size", "8x"], ["--steps", "0"],
       ["--check-steps", "0"], ["--viscosity", "-1"], ["--viscosity", "x"], ["--viscosity", "2"], ["--stage", "no_such_stage"],
       ["--stage", ""], ["--stage", "cpu0,cpu0"], ["--ref-steps", "5", "--stage", "cpu0"], ["--repeats", "0"],
       ["--bogus"], ["--csv", "--json"])
for args in bad:
    r = run(*args)
    lines = r.stderr.strip().splitlines()
    if r.returncode != 2 or len(lines) != 1 or not lines[0].startswith("vortex: error: "):
        failures.append(f"vortex {args}: exit {r.returncode}, stderr {r.stderr!r}")
    elif args[0] == "--size" and f"'{args[1]}'" not in lines[0]:  # the value as given, not half of it
        failures.append(f"vortex {args}: the message does not quote {args[1]!r}: {lines[0]}")
if run("--help").returncode != 0:
    failures.append("vortex --help failed")
# The largest size --help allows needs about 270 GB: where that is not available, one line, exit 2.
available = int(next(line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemAvailable"))) * 1024
if available < 4 * 4 * 46000**2 * 8:
    r = run("--size", "46000")
    if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1 or "host memory" not in r.stderr:
        failures.append(f"vortex --size 46000 without the memory: exit {r.returncode}, stderr {r.stderr!r}")


limits = Limits()  # tests/cli_limits.py: each limit accepted, one step past it refused


# --size and --viscosity as --help states them; one step past a real limit is the next double.
help_text = run("--help").stdout
size = re.search(r"--size N\|NXxNY\s+cells per side \((\d+) to (\d+)", help_text)
viscosity = re.search(r"--viscosity MU\s.*\((\d+): Euler's equations\), at most (\d+)", help_text)
if not size or not viscosity:
    limits.failures.append(f"vortex --help no longer states --size's and --viscosity's limits as the test reads them:\n"
                          f"{help_text}")
else:
    least, most = int(size[1]), int(size[2])
    limits.check_option(vortex, "--size", least, most)
    limits.check(vortex, "--size", [f"{least}x{most}", f"{most}x{least}"],
                 [f"{least - 1}x{least}", f"{least}x{least - 1}", f"{least}x{most + 1}", f"{most + 1}x{least}"],
                 lambda v: ["--size", v, *FORMATS])
    low, high = float(viscosity[1]), float(viscosity[2])
    limits.check(vortex, "--viscosity", [viscosity[1], viscosity[2]],
                 [math.nextafter(low, -math.inf), math.nextafter(high, math.inf)], lambda v: ["--viscosity", v, *FORMATS])
# The others, stated here (--help does not).
for option, low, high in (("--steps", 1, 100_000), ("--ref-steps", 0, 100_000), ("--check-steps", 1, 1000),
                          ("--repeats", 1, 1000), ("--cpu-repeats", 1, 1000)):
    limits.check_option(vortex, option, low, high)
failures += limits.summary()

# Every CPU stage on a mesh that is no multiple of a tile, checked against ref.
r = run("--size", "70x37", "--steps", "2", "--check-steps", "2", "--stage", "ref,cpu0,cpu1,cpu2,cpu3,cpu4", "--csv")
if r.returncode != 0 or r.stdout.count("\n") != 7 or "FAIL" in r.stdout or "vortex: timing cpu4: " not in r.stderr:
    failures.append(f"vortex CPU run: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")
if len(sys.argv) > 2:  # cpu1's skeleton: checked, failed, not timed (its time would mean nothing)
    r = run("--size", "70x37", "--steps", "2", "--check-steps", "2", "--stage", "ref,cpu1", "--csv", program=sys.argv[2])
    rows = {row["stage"]: row for row in csv.DictReader(io.StringIO(r.stdout))}
    if r.returncode != 1 or rows.get("cpu1", {}).get("check") != "FAIL (not timed)" or rows["cpu1"]["time_s"] \
            or "timing cpu1" in r.stderr or "edit exercises/05-four-steps/" not in r.stderr:
        failures.append(f"vortex with cpu1's skeleton: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")
for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
