#!/usr/bin/env python3
"""Checks an OpenMP stage built by clang++ with ThreadSanitizer (tests/omp/race_driver.cpp):
  - its idea: the compiled stage starts a parallel region (`#pragma omp parallel` is there);
  - its threads: no data race, with LLVM's Archer so that OpenMP's own synchronisation is
    understood (a variable shared by mistake is reported however the threads interleaved).
The first problem found fails the test, naming the stage and the line.

usage: omp_race.py [--expect-failure] STAGE MESSAGE BINARY ARCHER_LIBRARY
  MESSAGE           what to say when the stage starts no threads (its IDEA line's message)
  --expect-failure  pass only if a problem is found (the stage before it, deliberately wrong ones)
Exit 77 (SKIP) where the build found no clang++ or no Archer (BINARY or ARCHER is "none").
"""
import os
import re
import subprocess
import sys

SKIP, RACE_EXIT = 77, 66


def problem(stage, message, binary, archer):
    symbols = subprocess.run(["nm", "-u", binary], capture_output=True, text=True).stdout
    if "__kmpc_fork_call" not in symbols:
        return f"{stage}: {message}"
    env = {**os.environ, "OMP_NUM_THREADS": "4", "OMP_TOOL_LIBRARIES": archer,
           "TSAN_OPTIONS": f"exitcode={RACE_EXIT} report_signal_unsafe=0 ignore_noninstrumented_modules=1"}
    run = subprocess.run([binary], capture_output=True, text=True, env=env, timeout=300)
    if run.returncode == 0:
        return None
    if "ThreadSanitizer: data race" in run.stderr:
        report = run.stderr[run.stderr.index("ThreadSanitizer: data race"):]
        where = re.search(r"(/\S+\.(?:cpp|h):\d+)", report)  # the parallel region's file and line
        return (f"{stage}: threads race on a variable they share"
                f"{' in the loop at ' + os.path.basename(where.group(1)) if where else ''}: "
                "declare loop indices and per-cell variables inside the parallel loop")
    return f"{stage}: the run failed (exit {run.returncode}): " + " ".join(run.stderr.strip().splitlines()[-3:])


def main(argv):
    expect_failure = argv[:1] == ["--expect-failure"]
    argv = argv[1:] if expect_failure else argv
    if len(argv) != 4:
        print(__doc__)
        return 2
    stage, message, binary, archer = argv
    if binary == "none" or archer == "none" or not os.path.exists(archer):
        print("skipped: this build found no clang++ with OpenMP and ThreadSanitizer's Archer "
              "(Debian/Ubuntu: apt-get install clang libomp-dev)")
        return SKIP
    found = problem(stage, message, binary, archer)
    print(found or f"{stage}: starts OpenMP threads, and ThreadSanitizer saw no race")
    if expect_failure:
        return 0 if found else 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
