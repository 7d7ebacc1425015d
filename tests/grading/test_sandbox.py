#!/usr/bin/env python3
"""The grader's sandbox and test runner (tools/grading/sandbox.py, run_tests.py) on this build's
own programs, in seconds: what a sandboxed process cannot do (see a hidden folder, write into
the checkout, reach the host's loopback, take more data memory than its limit, leave a process
behind unseen), and that the solutions' tests pass as the grader runs them: a stage's test
judged by a copy of itself through the pipe, with the launch counter, and the OpenMP race check
of heat's v0_omp (ThreadSanitizer, which needs its address space), where clang built it.

usage: test_sandbox.py BUILD_DIR
Exit 77 (SKIP) where bubblewrap cannot run.
"""
import pathlib
import socket
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from grading import run_tests, sandbox  # noqa: E402


def inside(box, script: str, limit_memory=True):
    """(exit code, output) of a Python SCRIPT run in the sandbox."""
    cmd, env, limits = box.wrap([sys.executable, "-c", script], ROOT, {})
    done = subprocess.run(cmd, env=env, preexec_fn=limits if limit_memory else None, capture_output=True, text=True,
                          timeout=120)
    return done.returncode, done.stdout + done.stderr


def main(build: pathlib.Path) -> int:
    problems = []
    with tempfile.TemporaryDirectory(prefix="hidden-") as hidden, socket.socket() as server:
        secret = pathlib.Path(hidden) / "secret.txt"
        secret.write_text("another student's work")
        box = sandbox.Sandbox([hidden], build, 1)
        if not box.active:
            print(f"skipped: {box.why_not}")
            return 77
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        for what, script, must_fail in (
                ("read a hidden folder", f"print(open({str(secret)!r}).read())", True),
                ("write into the checkout", f"open({str(ROOT / 'planted.txt')!r}, 'w').write('x')", True),
                ("reach the host's loopback", f"import socket; socket.create_connection(('127.0.0.1', {port}), 2)", True),
                ("take 2 GiB under a 1 GiB limit", "b = bytearray(2 << 30)", True),
                ("take 100 MiB under a 1 GiB limit", "b = bytearray(100 << 20)", False)):
            code, output = inside(box, script)
            if (code != 0) != must_fail:
                problems.append(f"a sandboxed process could {'' if must_fail else 'not '}{what}: exit {code}, "
                                f"{sandbox.strip(output).strip()[-300:]}")
        code, output = inside(box, "import subprocess; subprocess.Popen(['sleep', '60'])")
        if sandbox.leftover(output) != 1:
            problems.append(f"a process left running was not counted: {output.strip()[-300:]}")
    tests = {t["name"]: t for t in run_tests.introspect(build)}
    with tempfile.TemporaryDirectory(prefix="reference-") as copy:
        judges = run_tests.copy_reference(build, [tests["matmul-nat"]], pathlib.Path(copy))
        counter = str(build / "tools" / "grading" / "libgrade_launch_counter.so")
        # the grader's own test's limit: OpenBLAS reserves buffers for a thread per core, more
        # than 1 GiB on a 16-core machine, and a thread it cannot start kills the test (SIGINT)
        runner = sandbox.Sandbox([], build, 4)
        judged = run_tests.run(tests["matmul-nat"], 120, build, runner, counter, judges["matmul-nat"], seed=2026)
    if judged.status != "pass" or "threads" not in judged.counts:
        problems.append(f"matmul-nat, judged through the pipe with the launch counter: {judged}")
    if "heat-v0_omp-idea" in tests and any("omp_race" in part for part in tests["heat-v0_omp-idea"]["cmd"]):
        raced = run_tests.run(tests["heat-v0_omp-idea"], 120, build, runner)
        if raced.status not in ("pass", "skip"):
            problems.append(f"heat-v0_omp's race check in the sandbox: {raced}")
    for p in problems:
        print("FAIL:", p)
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(pathlib.Path(sys.argv[1]).resolve()))
