#!/usr/bin/env python3
"""Runs a stage-test program built without one of a concurrent stage's waits (common/stress.h)
several times and passes only if its tests fail every time as a plain test failure: no crash,
no hang, and no run where the race went unseen. Exit 77 (no GPU) is passed on as a skip.

Usage: expect_race_failure.py [--runs N] TEST_PROGRAM GTEST_FILTER
"""
import argparse
import re
import sys

from failing_run import run_failing

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--runs", type=int, default=3, help="runs, each of which must fail (default 3)")
parser.add_argument("program")
parser.add_argument("gtest_filter")
args = parser.parse_args()
if args.runs < 1:
    print("expect_race_failure.py: --runs must be at least 1", file=sys.stderr)
    sys.exit(2)

for run in range(1, args.runs + 1):
    code, output = run_failing([args.program, "--gtest_filter=" + args.gtest_filter], 300, f"run {run} of {args.program}")
    failed = re.findall(r"^\[  FAILED  \] ([A-Za-z_][^\s,]*)", output, re.MULTILINE)
    if code != 1 or not failed:
        print(output[-3000:])
        sys.exit(f"FAIL: run {run} of {args.program}: expected its tests to fail (exit 1), got exit {code}")
    print(f"run {run}: fails as it must, in {', '.join(sorted(set(failed)))}")
