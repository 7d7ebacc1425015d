#!/usr/bin/env python3
"""Runs a stage-test program built from the pristine exercises/ skeletons and passes only if
those tests fail as a student should see them fail: a plain test failure (no crash, no hang)
whose messages name every file to edit. Exit 77 (no GPU) is passed on as a skip.

Usage: expect_skeleton_failure.py [--launch CMD,ARG,...] TEST_PROGRAM FILE [FILE ...]
  --launch  the command that starts the program (mpirun and its arguments, for MPI stages)
"""
import sys

from failing_run import run_failing

args = sys.argv[1:]
launch = []
if args[:1] == ["--launch"]:
    launch, args = args[1].split(","), args[2:]
program, files = args[0], args[1:]
code, output = run_failing([*launch, program, "--gtest_filter=-SuiteRejects*"], 100, f"the skeletons' tests ({program})")
problems = []
if code != 1:
    problems.append(f"expected the skeletons' tests to fail with exit 1, got {code}")
problems += [f"no failure message names {f}" for f in files if f"-> edit {f}" not in output]
for problem in problems:
    print("FAIL:", problem)
if problems:
    print(output[-3000:])
    sys.exit(1)
print(f"the skeletons fail as they should, naming {', '.join(files)}")
