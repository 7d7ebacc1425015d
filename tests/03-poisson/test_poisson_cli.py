#!/usr/bin/env python3
"""The jacobi program's command line: bad arguments end with exit 2 and one stderr line;
--help works, with one usage line; each bounded argument and option accepts its limits and
refuses one step past each; a GPU stage without a GPU exits 77 before it makes its fields; a CPU
run prints its table and writes a PGM image (no GPU needed)."""
import math
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # tests/
from cli_limits import Limits  # noqa: E402

jacobi = sys.argv[1]
failures = []
for args in (["no_such_stage", "10", "10"], ["cpu", "0", "10"], ["cpu", "10", "-1"], ["cpu", "x", "10"], ["cpu", "10"],
             ["cpu", "10", "10", "-1e-3"], ["cpu", "10", "10", "abc"], ["multi", "10", "10", "1e-3"],
             ["cpu", "10", "10", "--parts", "0"], ["cpu", "10", "10", "--bogus"], ["cpu", "10", "10", "1", "2"],
             ["gpu2", "10", "10", "--parts", "2"],  # --parts is for the multi-GPU stages
             ["cpu", "10", "10", "--check-every", "5"],  # no tolerance to check
             ["cpu", "10", "10", "--depth", "4"],  # --depth is for the stages that fuse iterations
             ["gpu4", "10", "10", "--depth", "3"], ["gpu4", "10", "10", "--depth", "32"], ["gpu5", "10", "10", "--depth", "1"],
             ["cpu", "10", "10", "--pgm", ""], ["cpu", "10", "10", "--pgm", "/nonexistent-dir/u.pgm"]):
    r = subprocess.run([jacobi, *args], capture_output=True, text=True, timeout=60)
    lines = r.stderr.strip().splitlines()
    if r.returncode != 2 or len(lines) != 1 or not lines[0].startswith("jacobi: error: "):
        failures.append(f"{args}: exit {r.returncode}, stderr {r.stderr!r}")
# A GPU stage without a GPU (none visible, so this holds on a GPU machine too): exit 77 with its
# reason, before the host fields are made (1 GiB at N = 8192; the lesson runs 16384).
with tempfile.TemporaryFile("w+") as said:
    child = subprocess.Popen([jacobi, "multi", "8192", "10", "--parts", "4"], stdout=subprocess.DEVNULL, stderr=said,
                             env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    _, status, usage = os.wait4(child.pid, 0)
    said.seek(0)
    peak_mib = usage.ru_maxrss / 1024
    if os.waitstatus_to_exitcode(status) != 77 or peak_mib > 256:
        failures.append(f"multi without a GPU: exit {os.waitstatus_to_exitcode(status)}, {peak_mib:.0f} MiB at its peak "
                        f"(expected 77 before the fields are made), {said.read()!r}")
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

limits = Limits()  # tests/cli_limits.py: each limit accepted, one step past it refused


# The limits, stated here (--help does not). The options':
for option, low, high in (("--parts", 1, 64), ("--check-every", 1, 1_000_000)):
    limits.check_option(jacobi, option, low, high, before=["cpu", "10", "10"])
# The positional arguments are read after the options: there the probe ends with --parts on a
# one-GPU stage, which jacobi refuses only once it has read VERSION, N, iterations and the
# tolerance. N: (N + 2)^2 stays within 32-bit indices; the tolerance: any positive number.
PARTS_LINE = "--parts splits the rows over GPUs"
limits.check(jacobi, "N", [1, 46340], [0, 46341], lambda v: ["cpu", v, "10", "--parts", "2"], PARTS_LINE)
limits.check(jacobi, "iterations", [1, 100_000_000], [0, 100_000_001], lambda v: ["cpu", "10", v, "--parts", "2"],
             PARTS_LINE)
limits.check(jacobi, "tolerance", [math.nextafter(0, 1)], [0], lambda v: ["cpu", "10", "10", v, "--parts", "2"],
             PARTS_LINE)
failures += limits.summary()

for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
