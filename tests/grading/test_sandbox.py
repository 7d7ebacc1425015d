#!/usr/bin/env python3
"""The grader's sandbox and test runner (tools/grading/sandbox.py, run_tests.py) on this build's
own programs, in seconds. What a sandboxed process cannot do: see a hidden folder, the checkout's
solutions/, .git/ or build folders, or a root-only file (as root); write into the checkout;
reach the host's loopback or a socket file (in /run or elsewhere); trace or read another
process (ptrace, process_vm_readv), reach the monitor's pipe through /proc, make a user
namespace; take more memory than its limit, in one process or in three together (where the
sandbox has a cgroup); start a thousand processes (a cgroup, or as root a user of its own);
fill /tmp or /dev/shm past their size; flood the grader with output; leave a process behind
unseen, even one that left the sandbox's session. And that the solutions' tests pass as the
grader runs them: a stage's test judged by a copy of itself, in a sandbox of its own, through
the pipe, with the launch counter; and the OpenMP race check of heat's v0_omp (ThreadSanitizer,
which needs its address space), where clang built it.

usage: test_sandbox.py BUILD_DIR
Exit 77 (SKIP) where bubblewrap cannot run.
"""
import os
import pathlib
import resource
import socket
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from grading import run_tests, sandbox  # noqa: E402

# (what it tries, the Python it runs, whether it must fail); {names} filled in by main()
ATTEMPTS = [
    ("read a hidden folder", "print(open({secret!r}).read())", True),
    ("list the checkout's solutions/", "import os; assert os.listdir({solutions!r})", True),
    ("see no other folder of the checkout than the build's, the grading build and Python's",
     "import os; assert not set(os.listdir({root!r})) - set({visible!r})", False),
    ("read a file only root may read", "print(open({root_only!r}).read())", True),
    ("write into the checkout", "open({planted!r}, 'w').write('x')", True),
    ("reach the host's loopback", "import socket; socket.create_connection(('127.0.0.1', {port}), 2)", True),
    ("connect to a socket file in /run", "import socket; socket.socket(socket.AF_UNIX).connect({run_socket!r})", True),
    ("connect to a socket file elsewhere", "import socket; socket.socket(socket.AF_UNIX).connect({other_socket!r})", True),
    ("trace the sandbox's first process", "import ctypes; assert ctypes.CDLL(None).ptrace(16, 1, 0, 0) == 0", True),
    ("trace its monitor", "import ctypes, os; assert ctypes.CDLL(None).ptrace(16, os.getppid(), 0, 0) == 0", True),
    ("read its monitor's memory", "import ctypes, os\n"
     "buf = ctypes.create_string_buffer(8)\n"
     "class V(ctypes.Structure): _fields_ = [('b', ctypes.c_void_p), ('n', ctypes.c_size_t)]\n"
     "local, remote = V(ctypes.addressof(buf), 8), V(0x400000, 8)\n"
     "assert ctypes.CDLL(None).process_vm_readv(os.getppid(), ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) == 8",
     True),
    ("open its monitor's pipe to the grader", "import os; print(os.listdir(f'/proc/{{os.getppid()}}/fd'))", True),
    ("make a user namespace", "import os; os.unshare(os.CLONE_NEWUSER)", True),
    ("take 2 GiB under a 1 GiB limit", "b = bytearray(2 << 30)", True),
    ("take 100 MiB under a 1 GiB limit", "b = bytearray(100 << 20)", False),
    ("write 3 GiB to /tmp", "f = open('/tmp/big', 'wb')\nfor _ in range(3 << 4): f.write(bytes(64 << 20))", True),
    ("write 512 MiB to /dev/shm", "f = open('/dev/shm/big', 'wb')\nfor _ in range(8): f.write(bytes(64 << 20))", True),
]
CGROUP_ATTEMPTS = [  # limits of the whole sandbox
    ("take 3 x 600 MiB in three processes under a 1 GiB limit",
     "import os\nkids = []\nfor _ in range(3):\n  pid = os.fork()\n  if pid == 0:\n    b = bytearray(600 << 20)\n"
     "    for i in range(0, len(b), 4096): b[i] = 1\n    os._exit(0)\n  kids.append(pid)\n"
     "assert all(os.waitpid(k, 0)[1] == 0 for k in kids)", True),
]
PROCESS_ATTEMPTS = [("start 1000 processes", "import os, time\nfor _ in range(1000):\n  if os.fork() == 0:\n"
                     "    time.sleep(5); os._exit(0)", True)]


def inside(box, script: str):
    """(exit code, output) of a Python SCRIPT run in the sandbox."""
    done = box.run([sys.executable, "-c", script], ROOT, limit=120)
    return done.code, done.output


def listening_unix_socket(path: pathlib.Path):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.listen()
    return s


def main(build: pathlib.Path) -> int:
    problems = []
    root = os.geteuid() == 0
    with tempfile.TemporaryDirectory(prefix="hidden-") as hidden, socket.socket() as server, \
            tempfile.TemporaryDirectory(prefix="tut-sockets-", dir="/var/lib" if root else None) as exposed:
        secret = pathlib.Path(hidden) / "secret.txt"
        secret.write_text("another student's work")
        root_only = pathlib.Path(exposed) / "root-only.txt"
        root_only.write_text("the machine's secret")
        root_only.chmod(0o600)
        os.chmod(exposed, 0o755)
        run_socket = pathlib.Path("/run" if root and os.path.isdir("/run") else exposed) / f"tut-test-{os.getpid()}.sock"
        sockets = [listening_unix_socket(run_socket), listening_unix_socket(pathlib.Path(exposed) / "other.sock")]
        try:
            box = sandbox.Sandbox([hidden], build, 1)
            if not box.active:
                print(f"skipped: {box.why_not}")
                return 77
            print(box.describe())
            server.bind(("127.0.0.1", 0))
            server.listen()
            names = dict(secret=str(secret), solutions=str(ROOT / "solutions"), root=str(ROOT),
                         visible=list(sandbox.VISIBLE) + [p.relative_to(ROOT).parts[0] for p in (build, pathlib.Path(sys.prefix))
                                                          if p.is_relative_to(ROOT)],
                         root_only=str(root_only), planted=str(ROOT / "planted.txt"),
                         port=server.getsockname()[1], run_socket=str(run_socket), other_socket=str(sockets[1].getsockname()))
            attempts = ATTEMPTS + (CGROUP_ATTEMPTS if box.cgroups else []) + \
                (PROCESS_ATTEMPTS if box.cgroups or box.switch_user else [])
            for what, script, must_fail in attempts:
                if what in ("read a file only root may read", "open its monitor's pipe to the grader") and root \
                        and not box.switch_user:
                    print(f"not checked: whether it can {what} (root, without a user of the sandbox's own)")
                    continue
                if what == "read a file only root may read" and not root:
                    continue  # as the grader's own user, its files are the sandbox's to read
                code, output = inside(box, script.format(**names))
                if (code != 0) != must_fail:
                    problems.append(f"a sandboxed process could {'' if must_fail else 'not '}{what}: exit {code}, "
                                    f"{output.strip()[-300:]}")
            if not box.cgroups:
                print(f"not checked: the limits of the whole sandbox ({box.no_cgroup})")
        finally:
            for s in sockets:
                s.close()
            run_socket.unlink(missing_ok=True)
        problems += leftovers(box) + flood(box)
    problems += judged_through_the_pipe(build)
    for p in problems:
        print("FAIL:", p)
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


def leftovers(box) -> list:
    """A process left running is counted, and one that left the sandbox's session too; both end
    with the sandbox."""
    problems = []
    for what, script in (("a process left running", "import subprocess; subprocess.Popen(['sleep', '60'])"),
                         ("a process in a session of its own", "import os, time\nif os.fork() == 0:\n  os.setsid()\n"
                          "  if os.fork() == 0: time.sleep(60)\n  os._exit(0)\ntime.sleep(0.2)")):
        done = box.run([sys.executable, "-c", script], ROOT, limit=60)
        if done.left + done.escaped < 1:
            problems.append(f"{what} was not counted: {done}")
    return problems


def flood(box) -> list:
    """512 MiB of output: the grader keeps its head and tail, and its own memory stays small."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    done = box.run([sys.executable, "-c", "import sys\nfor _ in range(512): sys.stdout.write('x' * (1 << 20))"], ROOT,
                   limit=120)
    grew = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024  # KiB -> MiB
    if len(done.output) > (1 << 20) or "bytes of output left out" not in done.output or grew > 64:
        return [f"512 MiB of output: kept {len(done.output)} characters, the grader grew by {grew:.0f} MiB"]
    return []


def judged_through_the_pipe(build: pathlib.Path) -> list:
    """matmul-nat judged by a copy of its program through the pipe, with the launch counter; the
    race check of heat's v0_omp in the sandbox."""
    problems = []
    tests = {t["name"]: t for t in run_tests.introspect(build)}
    with tempfile.TemporaryDirectory(prefix="reference-") as copy:
        os.chmod(copy, 0o755)
        judges = run_tests.copy_reference(build, [tests["matmul-nat"]], pathlib.Path(copy) / "reference")
        counter = str(build / "tools" / "grading" / "libgrade_launch_counter.so")
        # the grader's own test's limit: OpenBLAS reserves buffers for a thread per core, more
        # than 1 GiB on a 16-core machine, and a thread it cannot start kills the test (SIGINT)
        runner = sandbox.Sandbox([copy], build, 4)
        judged = run_tests.run(tests["matmul-nat"], 120, build, runner, counter, judges["matmul-nat"], seed=2026)
    if judged.status != "pass" or "threads" not in judged.counts:
        problems.append(f"matmul-nat, judged through the pipe with the launch counter: {judged}")
    if "heat-v0_omp-idea" in tests and any("omp_race" in part for part in tests["heat-v0_omp-idea"]["cmd"]):
        raced = run_tests.run(tests["heat-v0_omp-idea"], 120, build, runner)
        if raced.status not in ("pass", "skip"):
            problems.append(f"heat-v0_omp's race check in the sandbox: {raced}")
    return problems


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(pathlib.Path(sys.argv[1]).resolve()))
