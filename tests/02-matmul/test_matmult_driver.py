#!/usr/bin/env python3
"""The course driver matmult_f: its output line, its environment variables, its arguments.

  test_matmult_driver.py MATMULT_F --cpu   types nat and lib; bad arguments; each bounded argument
                                           and variable accepts its limits and refuses one step past
                                           each; and the same for matmul_bench (beside MATMULT_F),
                                           which without a GPU times the CPU types (no GPU needed)
  test_matmult_driver.py MATMULT_F --gpu   gpu2, gpu7 and a variant through the driver (exit 77
                                           without a GPU; gpu7 may say it cannot run on this one)
"""
import csv
import io
import math
import os
import re
import shlex
import subprocess
import sys

driver, mode = sys.argv[1], sys.argv[2]
LINE = re.compile(r"^\s*(\d+\.\d{3})\s+(\d+\.\d{3})\s+(\S+) # matmult_(\w+)$")
QUICK = {"MFLOPS_MIN_T": "0", "MFLOPS_MAX_IT": "1"}
failures = []


def run(args, **env):
    return subprocess.run([driver, *args], capture_output=True, text=True, timeout=120, env={**os.environ, **env})


def check_line(type_, m, n, k, env=QUICK, max_error=1e-12, may_be_unable=False):
    r = run([type_, str(m), str(n), str(k)], **env)
    if r.returncode == 77 and may_be_unable:
        print(f"{type_} not checked:", r.stderr.strip())
        return None
    if r.returncode == 77:
        print("skipped:", r.stderr.strip())
        sys.exit(77)
    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    match = LINE.match(last)
    if r.returncode != 0 or not match:
        failures.append(f"{type_} {m} {n} {k}: exit {r.returncode}, output {r.stdout!r} {r.stderr!r}")
        return None
    memory_kb, mflops, error, name = float(match[1]), float(match[2]), float(match[3]), match[4]
    if abs(memory_kb - 8 * (m * k + k * n + m * n) / 1024) > 1e-3:
        failures.append(f"{type_}: memory {memory_kb} kB, expected 8 (mk + kn + mn) / 1024")
    if name != type_ or not mflops > 0 or not error <= max_error:
        failures.append(f"{type_}: line {last!r}")
    return r


def printed_matrices(text):
    """{name: rows} of the matrices MATMULT_RESULTS=1 prints ("A =" then rows of numbers)."""
    matrices, name = {}, None
    for line in text.splitlines():
        if line.strip().endswith("=") and len(line.split()) == 2:
            name = line.split()[0]
            matrices[name] = []
        elif name and line.strip() and "#" not in line:
            matrices[name].append([float(v) for v in line.split()])
    return matrices


def check_against_python(type_, m, n, k):
    """The driver's own error column compares with OpenBLAS, which cannot check lib itself: here
    C is checked against a product computed in Python from the printed A and B."""
    r = run([type_, str(m), str(n), str(k)], **QUICK, MATMULT_RESULTS="1")
    got = printed_matrices(r.stdout)
    if r.returncode != 0 or set(got) != {"A", "B", "C"}:
        failures.append(f"{type_}: MATMULT_RESULTS=1 did not print A, B and C (exit {r.returncode})")
        return
    A, B, C = got["A"], got["B"], got["C"]
    # The printed values have 6 decimals: each of the k products is off by at most ~1e-6.
    worst = max(abs(C[i][j] - sum(A[i][l] * B[l][j] for l in range(k))) for i in range(m) for j in range(n))
    if worst > 1e-5 * k:
        failures.append(f"{type_} {m}x{n}x{k}: C differs from A B computed in Python by {worst:.3g}")


if mode == "--gpu":
    check_line("gpu2", 37, 41, 43)
    check_line("gpu4_8", 37, 41, 43)
    check_line("gpu7", 37, 41, 43, may_be_unable=True)  # FP64 tensor cores: compute capability 8.0+
else:
    check_line("nat", 37, 41, 43)
    check_line("lib", 64, 32, 16)
    check_against_python("lib", 7, 5, 6)
    check_against_python("nat", 3, 4, 9)
    r = check_line("nat", 5, 5, 5, env={**QUICK, "MATMULT_COMPARE": "0"})
    if r and " 0.000000e+00 # " not in r.stdout:
        failures.append("MATMULT_COMPARE=0 should print an error of 0 (not compared)")
    r = run(["lib", "8", "8", "8"], MFLOPS_MIN_T="0.2")  # repeats until 0.2 s have passed
    if r.returncode != 0:
        failures.append("MFLOPS_MIN_T=0.2 failed")
    for args, env in ((["gpu99", "4", "4", "4"], {}), (["nat", "-1", "4", "4"], {}), (["nat", "4", "x", "4"], {}),
                      (["nat", "4", "4"], {}), (["nat", "4", "4", "4"], {"MFLOPS_MIN_T": "-1"}),
                      (["nat", "4", "4", "4"], {"MFLOPS_MAX_IT": "abc"}),
                      (["nat", "4", "4", "4"], {"MFLOPS_MIN_T": "inf"}), (["nat", "4", "4", "4"], {"MFLOPS_MIN_T": "1e9"}),
                      (["nat", "4", "4", "4"], {"MFLOPS_MIN_T": ""}), (["nat", "4", "4", "4"], {"MATMULT_RESULTS": "2"}),
                      (["nat", "4", "4", "4"], {"MATMULT_COMPARE": "0.5"}),
                      (["nat", "1000000", "1000000", "10"], {})):  # 15 TiB of matrices: more than the host has
        r = run(args, **env)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 2 or len(lines) != 1:
            failures.append(f"{args} {env}: exit {r.returncode}, stderr {r.stderr!r}")
    for args in (["--help"], ["nat", "4", "4", "4", "--help"]):
        r = run(args)
        if r.returncode != 0 or "usage: matmult_f" not in r.stdout:
            failures.append(f"{args}: exit {r.returncode}, no usage printed")
    help_text = run(["--help"]).stdout

    # --- the limits of every bounded argument, variable and option: each limit is accepted, one
    # step past it is refused with exit 2 and one line naming it.
    probes, bound_failures = 0, []

    def check_bounds(program, label, accepted, refused, probe, went_on):
        """probe(value) -> (arguments, environment); went_on(result): the program took the value and
        went on past its parser; label: the name the error line gives."""
        global probes
        name = os.path.basename(program)
        for value, accept in [(v, True) for v in accepted] + [(v, False) for v in refused]:
            probes += 1
            args, env = probe(str(value))
            r = subprocess.run([program, *args], capture_output=True, text=True, timeout=120, env={**os.environ, **env})
            lines = r.stderr.strip().splitlines()
            said = " ".join([*(f"{k}={v}" for k, v in env.items()), name, shlex.join(args)])
            if accept and not went_on(r):
                bound_failures.append(f"{said}: {value} is a limit of {label}, but it was not accepted "
                                      f"(exit {r.returncode}, stderr {r.stderr!r})")
            elif not accept and (went_on(r) or r.returncode != 2 or len(lines) != 1
                                 or not lines[0].startswith(f"{name}: error: ")
                                 or not re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-])", lines[0])):
                bound_failures.append(f"{said}: {value} is one step past a limit of {label}, but it was not refused "
                                      f"in one line naming {label} (exit {r.returncode}, stderr {r.stderr!r})")

    # matmult_f reads its arguments and variables in turn and then runs, so a probe is a real run,
    # made small: the other sizes 2, two calls (PROBE; values that are no limit themselves). A
    # limit is accepted when that run prints its line; a size of 2^20 along one axis alone is a
    # few MiB. m, n, k and bs: 1 to 2^20 (--help does not state it; the driver's error line does).
    PROBE = {"MFLOPS_MIN_T": "0.001", "MFLOPS_MAX_IT": "2"}

    def printed_its_line(r):
        return r.returncode == 0 and LINE.match(r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "")

    MOST = 1 << 20
    for axis, label in enumerate(("m", "n", "k", "bs")):
        def sizes(value, axis=axis):
            dims = ["2", "2", "2", "2"]
            dims[axis] = value
            return ["nat", *dims[:max(axis + 1, 3)]], PROBE
        check_bounds(driver, label, [1, MOST], [0, MOST + 1], sizes, printed_its_line)
    # The variables, as --help states them: MFLOPS_MIN_T from 0 to its "at most" (seconds),
    # MFLOPS_MAX_IT from 1 (to infinity), the switches' {0|1}. One step past a real limit is the
    # next double.
    shown = re.search(r"MFLOPS_MIN_T=\[[\d.]+\] \(seconds, at most (\d+)\)", help_text)
    switches = re.findall(r"(MATMULT_\w+)=\{\[?(\d)\]?\|\[?(\d)\]?\}", help_text)
    if not shown or sorted(name for name, *_ in switches) != ["MATMULT_COMPARE", "MATMULT_RESULTS"]:
        bound_failures.append(f"--help no longer states MFLOPS_MIN_T's 'at most' and the switches' {{0|1}}: "
                              f"{help_text!r}")
    else:
        for name, accepted, refused in (
                ("MFLOPS_MIN_T", [0, shown[1]], [math.nextafter(0, -1), math.nextafter(float(shown[1]), math.inf)]),
                ("MFLOPS_MAX_IT", [1, "inf"], [math.nextafter(1, 0)]),
                *((name, [low, high], [int(low) - 1, int(high) + 1]) for name, low, high in switches)):
            check_bounds(driver, name, accepted, refused,
                         lambda v, name=name: (["nat", "2", "2", "2"], {**PROBE, name: v}), printed_its_line)

    # matmul_bench, built beside the driver: its options' limits, stated here (--help does not).
    # A probe ends with --csv --json, which Cli::parse refuses only after it has read and checked
    # every option: that line says the value was accepted, and the program stops there, before it
    # allocates or computes anything. A value past a limit must be refused before it.
    bench = os.path.join(os.path.dirname(os.path.abspath(driver)), "matmul_bench")
    if not os.path.isfile(bench):
        print(f"FAIL matmul_bench is not built beside {driver}")
        sys.exit(1)

    def parsed_all(r):
        return r.returncode == 2 and r.stderr.strip() == "matmul_bench: error: choose one of --csv and --json"

    for option, low, high in (("--min-n", 16, 16384), ("--max-n", 16, 16384), ("--nat-max", 1, 16384),
                              ("--gpu1-max", 1, 16384)):
        check_bounds(bench, option, [low, high], [low - 1, high + 1],
                     lambda v, option=option: ([option, v, "--csv", "--json"], {}), parsed_all)
    print(f"{probes - len(bound_failures)} of {probes} limits and steps past them handled as expected")
    failures += bound_failures
    # Bounds that leave nothing to run: a usage error, not an empty table and exit 0.
    for args in (["--min-n", "1024", "--max-n", "64", "--types", "nat"], ["--min-n", "1024", "--types", "nat", "--square"]):
        r = subprocess.run([bench, *args], capture_output=True, text=True, timeout=120)
        if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1 or "matmul_bench: error: " not in r.stderr:
            failures.append(f"matmul_bench {' '.join(args)}: exit {r.returncode}, {r.stdout!r} {r.stderr!r} "
                            "(expected a usage error: nothing to run)")

    # Without a GPU (none visible: CUDA_VISIBLE_DEVICES empty, so this holds on a GPU machine
    # too), the CPU types still run, with one line saying what was left out and why; only a
    # list of GPU types alone has nothing to run (exit 77, with the reason).
    NO_GPU = {"CUDA_VISIBLE_DEVICES": ""}

    def run_bench(args, **env):
        return subprocess.run([bench, *args], capture_output=True, text=True, timeout=120, env={**os.environ, **env})

    for types, rows_expected, left_out in (("nat", 2, None), ("nat,gpu2,lib", 4, "gpu2")):
        r = run_bench(["--types", types, "--min-n", "16", "--max-n", "32", "--csv"], **NO_GPU)
        rows = list(csv.DictReader(io.StringIO(r.stdout))) if r.returncode == 0 else []
        lines = r.stderr.strip().splitlines()
        if (r.returncode != 0 or len(rows) != rows_expected or any(row["check"] != "ok" for row in rows)
                or {row["type"] for row in rows} != set(types.split(",")) - {left_out}):
            failures.append(f"matmul_bench --types {types} without a GPU: exit {r.returncode}, expected "
                            f"{rows_expected} rows checked ok: {r.stdout!r} {r.stderr!r}")
        elif len(lines) != 1 or "no GPU" not in lines[0] or (left_out and left_out not in lines[0]):
            failures.append(f"matmul_bench --types {types} without a GPU: expected one line saying that only the CPU "
                            f"types run{f' and that {left_out} did not' if left_out else ''}: {r.stderr!r}")
    r = run_bench(["--types", "gpu2,gpu4_8", "--min-n", "16", "--max-n", "16", "--csv"], **NO_GPU)
    lines = r.stderr.strip().splitlines()
    if r.returncode != 77 or r.stdout or len(lines) != 1 or not re.match(r"matmul_bench: .*GPU", lines[0]):
        failures.append(f"matmul_bench --types gpu2,gpu4_8 without a GPU: expected exit 77 and one line with the "
                        f"reason, got exit {r.returncode}, {r.stdout!r} {r.stderr!r}")

for failure in failures:
    print("FAIL", failure)
sys.exit(1 if failures else 0)
