#!/usr/bin/env python3
"""The jacobi program's command line: bad arguments end with exit 2 and one stderr line;
--help works, with one usage line; each bounded argument and option accepts its limits and
refuses one step past each; a CPU run prints its table and writes a PGM image (no GPU needed)."""
import math
import os
import re
import shlex
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

# --- the limits of every bounded option: each limit is accepted, one step past it is refused.
# A probe ends with --csv --json, which Cli::parse refuses only after it has read and checked
# every option: that line says the value was accepted, and the program stops there, before it
# allocates or computes anything (a limit such as N = 46340 with 10^8 iterations never runs). A value past a
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


# The limits, stated here (--help does not). The options':
for option, low, high in (("--parts", 1, 64), ("--check-every", 1, 1_000_000)):
    check_option(jacobi, option, low, high, before=["cpu", "10", "10"])
# The positional arguments are read after the options: there the probe ends with --parts on a
# one-GPU stage, which jacobi refuses only once it has read VERSION, N, iterations and the
# tolerance. N: (N + 2)^2 stays within 32-bit indices; the tolerance: any positive number.
PARTS_LINE = "--parts splits the rows over GPUs"
check_bounds(jacobi, "N", [1, 46340], [0, 46341], lambda v: ["cpu", v, "10", "--parts", "2"], PARTS_LINE)
check_bounds(jacobi, "iterations", [1, 100_000_000], [0, 100_000_001], lambda v: ["cpu", "10", v, "--parts", "2"],
             PARTS_LINE)
check_bounds(jacobi, "tolerance", [math.nextafter(0, 1)], [0], lambda v: ["cpu", "10", "10", v, "--parts", "2"],
             PARTS_LINE)
print(f"{probes - len(bound_failures)} of {probes} limits and steps past them handled as expected")
failures += bound_failures

for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
