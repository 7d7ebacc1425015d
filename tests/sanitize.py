#!/usr/bin/env python3
"""Runs a GPU test program's cases under Compute Sanitizer, one tool after another: memcheck
(out-of-bounds and misaligned accesses, leaks of device memory), racecheck (shared-memory
hazards: a missing __syncthreads), synccheck (barriers used wrongly) and initcheck (device
memory read before it was written). The first error any tool reports fails the test, with that
tool's first message; the cases' own failures fail it too.

usage: sanitize.py [--tools memcheck,racecheck,...] [--expect-error] [--no-api-errors]
                   [--ignore-api-error NAME]... [--exclude-kernels NAME]
                   PROGRAM [ARGUMENTS...]
  --expect-error  the opposite: pass only if a tool reports an error (for the deliberately
                  wrong kernels the suite keeps, to show that it can fail)
  --no-api-errors memcheck does not count CUDA calls that return an error (the OpenACC stages:
                  GCC's runtime looks its optional symbols up in each module and expects "not
                  found"); memory errors still count
  --ignore-api-error NAME  memcheck does not count the API errors this CUDA call returns, or
                  of this error code (NCCL's start-up asks cudaFuncGetAttributes about each of its
                  kernels, and those built for other GPUs answer cudaErrorNoKernelImageForDevice;
                  each communicator enables peer access, and where it already is, clears the
                  answer, cudaErrorPeerAccessAlreadyEnabled: errors that are not the stage's);
                  every other API error and every memory error still counts; host backtraces are
                  left out (unwinding each of those errors is slow)
  --exclude-kernels NAME  the tools do not check kernels whose name contains NAME (a library's
                  own: NCCL's SendRecv kernel reads buffers its peer GPU wrote, which initcheck
                  cannot see written); the stage's own kernels are checked as ever
Exit 77 (SKIP) without a GPU or without compute-sanitizer.
"""
import os
import re
import shutil
import subprocess
import sys

SKIP = 77
ERROR_EXIT = 86  # what compute-sanitizer returns when it reported an error
TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
API_ERROR = re.compile(r"^========= Program hit (\w+) .* on CUDA API call to (\w+)\..*\n", re.MULTILINE)
SUMMARY = re.compile(r"(ERROR SUMMARY: (\d+) error|RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) error)")


def find_sanitizer():
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for home in (os.environ.get("CUDA_HOME", ""), os.environ.get("CUDA_PATH", ""), "/usr/local/cuda"):
        candidate = os.path.join(home, "compute-sanitizer", "compute-sanitizer")
        if home and os.access(candidate, os.X_OK):
            return candidate
        candidate = os.path.join(home, "bin", "compute-sanitizer")
        if home and os.access(candidate, os.X_OK):
            return candidate
    return None


def first_message(output):
    """The sanitizer's first report: its first '=========' line that is not a banner or a summary,
    with the line after it where that says where (the kernel and its source line)."""
    lines = output.splitlines()
    for n, line in enumerate(lines):
        text = line.removeprefix("=========").strip()
        if line.startswith("=========") and text and "SUMMARY" not in text and not text.startswith("COMPUTE-SANITIZER"):
            where = lines[n + 1].removeprefix("=========").strip() if n + 1 < len(lines) else ""
            return text + (f" ({where})" if where.startswith("at ") else "")
    return "(no message)"


def main(argv):
    tools, expect_error, api_errors, ignored_calls, excluded = TOOLS, False, [], [], []
    while argv and argv[0].startswith("--"):
        option = argv.pop(0)
        if option == "--expect-error":
            expect_error = True
        elif option == "--no-api-errors":
            api_errors = ["--report-api-errors", "no"]
        elif option == "--ignore-api-error" and argv:
            ignored_calls.append(argv.pop(0))
        elif option == "--exclude-kernels" and argv:
            excluded += ["--kernel-name-exclude", "kns=" + argv.pop(0)]
        elif option == "--tools":
            tools = tuple(argv.pop(0).split(","))
        else:
            print(__doc__)
            return 2
    if not argv:
        print(__doc__)
        return 2
    program = argv
    # the program with no case selected: exit 77 where it cannot run (no GPU, too few)
    probe = subprocess.run([program[0], "--gtest_filter=-*"], capture_output=True, text=True)
    if probe.returncode == SKIP:
        print(probe.stdout.strip() or "skipped: no usable GPU")
        return SKIP
    sanitizer = find_sanitizer()
    if not sanitizer:
        print("skipped: compute-sanitizer is not on the PATH (it comes with the CUDA toolkit)")
        return SKIP
    caught = []
    for tool in tools:
        run = subprocess.run([sanitizer, "--tool", tool, "--error-exitcode", str(ERROR_EXIT),
                              *(api_errors if tool == "memcheck" else []),
                              *(["--show-backtrace", "device", "--print-limit", "0"] if ignored_calls else []),
                              *excluded, *program],
                             capture_output=True, text=True)
        output = run.stdout + run.stderr
        errors = sum(int(m.group(2) or m.group(3)) for m in SUMMARY.finditer(output))
        returncode = run.returncode
        if tool == "memcheck" and ignored_calls:
            ignored = [m for m in API_ERROR.finditer(output) if {m.group(1), m.group(2)} & set(ignored_calls)]
            if ignored:
                print(f"memcheck: {len(ignored)} error(s) of {', '.join(ignored_calls)} not counted")
                errors -= len(ignored)
                output = API_ERROR.sub(lambda m: "" if {m.group(1), m.group(2)} & set(ignored_calls) else m.group(0), output)
                if errors == 0 and returncode == ERROR_EXIT:
                    returncode = 0
        if returncode == SKIP:
            print("skipped:", output.strip().splitlines()[-1] if output.strip() else "no usable GPU")
            return SKIP
        ran = re.search(r"\[  PASSED  \] (\d+) test", output)
        if returncode == 0 and not (ran and int(ran.group(1)) > 0):
            print(f"{tool}: no test case ran (does the filter match any?): nothing was checked")
            return 1
        if returncode == ERROR_EXIT or errors:
            caught.append(tool)
            print(f"{tool}: {errors or 'an'} error(s); the first: {first_message(output)}")
        elif returncode != 0:
            print(f"{tool}: the cases themselves failed (exit {returncode}):")
            print("\n".join(output.strip().splitlines()[-15:]))
            return 1
        else:
            print(f"{tool}: clean")
    if expect_error:
        print("caught, as it must be" if caught else "FAIL: no tool reported the error this program has")
        return 0 if caught else 1
    return 1 if caught else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
