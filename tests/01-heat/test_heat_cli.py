#!/usr/bin/env python3
"""The heat driver heat3d's command line: --help works, and every bad argument ends the program
with exactly one line on stderr and exit code 2 (no crash, no hang, no GPU needed); each
bounded option accepts its limits and refuses one step past each."""
import os
import re
import shlex
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
help_text = run.stdout

print(f"{len(BAD) + 1 - len(failures)} of {len(BAD) + 1} command lines handled as expected")

# --- the limits of every bounded option: each limit is accepted, one step past it is refused.
# A probe ends with --csv --json, which Cli::parse refuses only after it has read and checked
# every option: that line says the value was accepted, and the program stops there, before it
# allocates or computes anything (a limit such as --nx 2147483647 never runs). A value past a
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


# --help states every integer option's limits, "(LOW..HIGH, default D)": each is pinned as shown.
limits = {option: (int(low), int(high)) for option, low, high in re.findall(r"(--[\w-]+) N .*?\((\d+)\.\.(\d+)", help_text)}
expected = {"--nx", "--ny", "--nz", "--steps", "--repeats", "--cpu-steps", "--seed"}
if set(limits) != expected:
    failures.append(f"--help states the limits of {sorted(limits)}, not of {sorted(expected)}")
for option, (low, high) in limits.items():
    check_option(heat, option, low, high)
if {"--nx", "--ny", "--nz"} <= set(limits):  # --size N is --nx N --ny N --nz N: what all three accept
    check_option(heat, "--size", max(limits[a][0] for a in ("--nx", "--ny", "--nz")),
                 min(limits[a][1] for a in ("--nx", "--ny", "--nz")))
# --block XxYxZ: x and y up to 1024, z up to 64, at most 1024 threads in all (CUDA's limits).
check_bounds(heat, "--block", ["1x1x1", "1024x1x1", "1x1024x1", "1x1x64", "32x32x1", "4x4x64"],
             ["0x1x1", "1x0x1", "1x1x0", "1025x1x1", "1x1025x1", "1x1x65", "5x205x1"],
             lambda v: ["--block", v, *FORMATS])
print(f"{probes - len(bound_failures)} of {probes} limits and steps past them handled as expected")
failures += bound_failures

for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
