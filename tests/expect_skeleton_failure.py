#!/usr/bin/env python3
"""Runs a stage-test program built from the pristine exercises/ skeletons and passes only if
those tests fail as a student should see them fail: a plain test failure (no crash, no hang)
whose messages name every file to edit. Exit 77 (no GPU) is passed on as a skip.

Usage: expect_skeleton_failure.py [--launch CMD,ARG,...] TEST_PROGRAM FILE [FILE ...]
  --launch  the command that starts the program (mpirun and its arguments, for MPI stages)
"""
import subprocess
import sys

args = sys.argv[1:]
launch = []
if args[:1] == ["--launch"]:
    launch, args = args[1].split(","), args[2:]
program, files = args[0], args[1:]
try:
    run = subprocess.run([*launch, program, "--gtest_filter=-SuiteRejects*"], capture_output=True, text=True, timeout=100)
except subprocess.TimeoutExpired:
    sys.exit(f"FAIL: the skeletons' tests hang ({program})")
output = run.stdout + run.stderr
if run.returncode == 77:
    print(output.strip())
    sys.exit(77)
problems = []
if run.returncode != 1:
    problems.append(f"expected the skeletons' tests to fail with exit 1, got {run.returncode}")
problems += [f"no failure message names {f}" for f in files if f"-> edit {f}" not in output]
for problem in problems:
    print("FAIL:", problem)
if problems:
    print(output[-3000:])
    sys.exit(1)
print(f"the skeletons fail as they should, naming {', '.join(files)}")
