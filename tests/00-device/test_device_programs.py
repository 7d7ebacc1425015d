#!/usr/bin/env python3
"""Tests of chapter 00-device's programs.

  --cli DEVICE_INFO BANDWIDTH PEAK     bad arguments end with exit 2 and one stderr line; --help
                                       works; each bounded option accepts its limits and refuses
                                       one step past each; and the sanity checks below reject
                                       made-up numbers that break physics (no GPU needed)
  --sanity DEVICE_INFO BANDWIDTH PEAK  on a GPU: every program runs and prints sane values:
                                       bandwidths positive and under the theoretical memory rate,
                                       arithmetic rates positive, under their theoretical bound,
                                       and checked; exit 77 (skip) without a GPU
"""
import csv
import io
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # tests/
from cli_limits import Limits  # noqa: E402


def run(args, timeout=300):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


def info_values(rows):
    return {r["property"]: r["value"] for r in rows if r["device"] == "0"}


def bandwidth_problems(rows, memory_gbps):
    problems = []
    for r in rows:
        gbps = float(r["gb_per_s"])
        if not 0 < gbps <= 1.02 * memory_gbps:
            problems.append(f"{r['kind']} at {r['bytes']} B: {gbps} GB/s is outside (0, {memory_gbps:.0f}]")
    return problems


def peak_problems(rows):
    problems = []
    for r in rows:
        measured = float(r["measured"])
        bound = float(r["theoretical"]) if r["theoretical"] else float("inf")
        if not 0 < measured <= 1.02 * bound:
            problems.append(f"{r['ceiling']}: {measured} {r['unit']} is outside (0, {bound:.0f}]")
        if r["verified"] != "yes":
            problems.append(f"{r['ceiling']}: its result was not verified")
    return problems


def self_test():
    """The checks must reject impossible measurements: a check that cannot fail proves nothing."""
    fake_copy = [{"kind": "D2D", "bytes": "1024", "gb_per_s": "9000"}]
    fake_zero = [{"kind": "H2D pinned", "bytes": "1024", "gb_per_s": "0"}]
    fake_peak = [{"ceiling": "FP32 FMA kernel", "measured": "90000", "theoretical": "66908", "unit": "GFLOP/s",
                  "verified": "yes"}]
    fake_unchecked = [{"ceiling": "cuBLAS DGEMM", "measured": "50000", "theoretical": "66908", "unit": "GFLOP/s",
                       "verified": "NO"}]
    failures = []
    if not bandwidth_problems(fake_copy, 4800):
        failures.append("a copy faster than the memory's theoretical rate was accepted")
    if not bandwidth_problems(fake_zero, 4800):
        failures.append("a zero bandwidth was accepted")
    if not peak_problems(fake_peak):
        failures.append("a rate above the theoretical peak was accepted")
    if not peak_problems(fake_unchecked):
        failures.append("an unverified result was accepted")
    return failures


limits = Limits()  # tests/cli_limits.py: each limit accepted, one step past it refused


# The limits, stated here (--help does not); device_info has no option with a value.
BOUNDS = {
    "bandwidth": (("--min-bytes", 1, 2**36), ("--max-bytes", 1, 2**36), ("--repeats", 1, 1000)),
    "peak": (("--n", 256, 32768), ("--repeats", 1, 1000)),
}


def cli(programs):
    failures = self_test()
    bad = {
        "device_info": [["--bogus"], ["stray"], ["--csv", "--json"]],
        "bandwidth": [["--max-bytes", "0"], ["--min-bytes", "-4"], ["--max-bytes", "1k"], ["--repeats", "0"],
                      ["--min-bytes", "4096", "--max-bytes", "1024"]],
        "peak": [["--n", "-1"], ["--n", "100"], ["--n", "abc"], ["--repeats", "0"]],
    }
    for program in programs:
        name = program.rsplit("/", 1)[-1]
        for args in bad[name]:
            r = run([program, *args], timeout=60)
            lines = r.stderr.strip().splitlines()
            if r.returncode != 2 or len(lines) != 1 or not lines[0].startswith(f"{name}: error: "):
                failures.append(f"{name} {args}: exit {r.returncode}, stderr {r.stderr!r}")
        r = run([program, "--help"], timeout=60)
        if r.returncode != 0 or f"usage: {name}" not in r.stdout:
            failures.append(f"{name} --help: exit {r.returncode}")
        for option, low, high in BOUNDS.get(name, ()):
            limits.check_option(program, option, low, high)
    return failures + limits.summary()


def sanity(device_info, bandwidth, peak):
    outputs = {}
    for name, args in (("device_info", [device_info, "--csv"]),
                       ("bandwidth", [bandwidth, "--max-bytes", str(64 << 20), "--repeats", "3", "--csv"]),
                       ("peak", [peak, "--n", "2048", "--repeats", "3", "--csv"])):
        r = run(args)
        if r.returncode == 77:
            print(f"skipped: {r.stderr.strip()}")
            sys.exit(77)
        if r.returncode != 0:
            return [f"{name} exited {r.returncode}: {r.stderr.strip()}"]
        outputs[name] = list(csv.DictReader(io.StringIO(r.stdout)))
    info = info_values(outputs["device_info"])
    failures = []
    memory_gbps = float(info.get("theoretical memory bandwidth", 0) or 0)
    if not info.get("name") or memory_gbps <= 0:
        failures.append(f"device_info lacks a name or a theoretical bandwidth: {info}")
    failures += bandwidth_problems(outputs["bandwidth"], memory_gbps)
    kinds = {r["kind"] for r in outputs["bandwidth"]}
    failures += [f"bandwidth did not measure {k}" for k in ("H2D pageable", "H2D pinned", "D2H pageable",
                                                             "D2H pinned", "D2D") if k not in kinds]
    failures += peak_problems(outputs["peak"])
    if len(outputs["peak"]) != 5:
        failures.append(f"peak printed {len(outputs['peak'])} ceilings, expected 5")
    print(f"checked {len(outputs['bandwidth'])} bandwidths and {len(outputs['peak'])} ceilings on {info.get('name')}")
    return failures


def main():
    mode, programs = sys.argv[1], sys.argv[2:]
    failures = cli(programs) if mode == "--cli" else sanity(*programs)
    for failure in failures:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
