#!/usr/bin/env python3
"""Checks that a stage's compiled code shows its idea (the IDEA line after the stage's line in
its list, see common/stages.h):
  ptx     PATTERN, a regular expression, is found in the PTX of the stage's file;
  symbol  the stage's object calls a function that PATTERN names (nm's undefined symbols);
  loads-per-store  the PTX of the stage's file has at most PATTERN (a number) global loads per
          global store: values loaded once are reused from registers (strips, blocking).
A failing check prints "STAGE: MESSAGE", the message of the IDEA line.

usage: check_idea.py [--skip-without-gpu DEVICE_INFO] ptx|symbol|loads-per-store PATTERN
                     [--expect-failure] STAGE MESSAGE FILE
  --skip-without-gpu  exit 77 (skip) where DEVICE_INFO finds no usable GPU, as the stage's own
                      test does: in a student's exercises build, an unsolved GPU stage that
                      cannot run here is not reported as failing its idea either
  --expect-failure  pass only if the idea is missing (the stage before, which lacks it)
"""
import re
import subprocess
import sys


KINDS = ("ptx", "symbol", "loads-per-store")
SKIP = 77


def has_idea(kind, pattern, path):
    if kind == "loads-per-store":
        ptx = open(path).read()
        loads, stores = len(re.findall(r"\bld\.global\.", ptx)), len(re.findall(r"\bst\.global\.", ptx))
        print(f"{loads} global loads, {stores} global stores in the PTX")
        return stores > 0 and loads / stores <= float(pattern)
    if kind == "ptx":
        return re.search(pattern, open(path).read()) is not None
    undefined = subprocess.run(["nm", "-u", path], capture_output=True, text=True, check=True).stdout
    return re.search(pattern, undefined) is not None


def main(argv):
    if argv[:1] == ["--skip-without-gpu"] and len(argv) > 1:
        done = subprocess.run([argv[1]], capture_output=True, text=True)
        if done.returncode == SKIP:
            print("skipped: " + (done.stderr.strip().splitlines() or ["no usable GPU"])[-1])
            return SKIP
        argv = argv[2:]
    if len(argv) < 5 or argv[0] not in KINDS:
        print(__doc__)
        return 2
    kind, pattern, rest = argv[0], argv[1], argv[2:]
    expect_failure = rest[:1] == ["--expect-failure"]
    stage, message, path = rest[1:] if expect_failure else rest
    found = has_idea(kind, pattern, path)
    print(f"{stage}: " + ("has its idea" if found else message) + f" ({kind} /{pattern}/)")
    if expect_failure:
        return 1 if found else 0
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
