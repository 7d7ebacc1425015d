"""Runs one Meson test of the grading build under the grader's own time limit, in the sandbox.

A stage's own test (a GoogleTest program) is run twice at once, and the verdict is the second
run's. The first runs the submission's code, in the sandbox, on inputs (and extra sizes) drawn
from the seed the grader chose when it started (TUT_GRADE_SEED: the same for the solutions'
runs, whose launch counts the submissions' are held against), and sends each output of the
stage down a pipe (TUT_GRADE_RECORD_FD; see common/graded.h). The second is the same test built from the solutions (the reference programs,
copied before any submission was built): it draws the same inputs and runs every check on the
outputs that arrive through the pipe (TUT_GRADE_JUDGE_FD), in a process that never loads the
submission's code. The first run's exit code and report only count against it: a run that says
it passed while the reference run finds a failure is gaming. For a GPU stage, the launch
counter is preloaded into the first run and reports through a second pipe, with a token it
takes from a third (see launch_counter.cpp)."""
import dataclasses
import json
import os
import pathlib
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import xml.etree.ElementTree as ET

from . import sandbox as sandboxing
from .sandbox import View
from chapters import tool

SKIP = 77
CACHING_CASE = "RecomputesWhenOnlyTheInputsChange"  # the tests' case that catches cached results
# The judge's own run of the solution is thrown away (it takes the submission's outputs): one
# thread, so that its OpenMP and OpenBLAS threads do not spin against the submission's.
JUDGE_THREADS = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_WAIT_POLICY": "passive"}


@dataclasses.dataclass
class Outcome:
    status: str   # pass, fail, skip, timeout, crash, gaming
    message: str = ""
    seconds: float = 0.0
    failed_cases: tuple = ()
    counts: dict = dataclasses.field(default_factory=dict)  # from the launch counter


def introspect(build: pathlib.Path, what: str = "tests") -> list:
    """The grading build's tests (or targets), as Meson describes them."""
    done = subprocess.run([tool("meson"), "introspect", str(build), "--" + what], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def outputs_for(build: pathlib.Path, tests: list) -> list:
    """What ninja must build for TESTS to run: the files of the targets they depend on."""
    wanted = {d for t in tests for d in t["depends"]}
    return [str(pathlib.Path(f).relative_to(build)) for t in introspect(build, "targets") if t["id"] in wanted
            for f in t["filename"]]


def copy_reference(build: pathlib.Path, tests: list, into: pathlib.Path) -> dict:
    """Copies the GoogleTest programs of TESTS, as built now (from the solutions), and every
    shared library of the build, to INTO, keeping their places relative to the build (their
    run paths are relative). Returns test name -> (the reference program's command, its
    environment: the test's, with every path into the build moved to the copy, as Meson's
    LD_LIBRARY_PATH, which would load the submission's libmatmult.so; INTO). A test that Meson starts
    through another program (chapter 05's mpi stage, through mpirun: three processes) has no
    judge: it is judged by its exit code, as an idea check is."""
    into.mkdir(mode=0o755, parents=True, exist_ok=True)
    for library in build.rglob("*.so"):
        if "meson-" not in str(library.relative_to(build)):
            (into / library.relative_to(build)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(library, into / library.relative_to(build))
    commands = {}
    for test in tests:
        program = pathlib.Path(test["cmd"][0])
        if test.get("protocol") == "gtest" and program.is_relative_to(build):
            copy = into / program.relative_to(build)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(program, copy)
            env = {k: v.replace(str(build), str(into)) for k, v in test.get("env", {}).items()}
            commands[test["name"]] = ([str(copy), *test["cmd"][1:]], env, into)
    return commands


def run(test: dict, limit: float, build: pathlib.Path, box, preload: str = "", reference=None, seed=0) -> Outcome:
    """TEST in the sandbox BOX, with the launch counter PRELOAD if given; judged by the REFERENCE
    program's run (command, environment, its folder), in a sandbox of its own, when it is given,
    on inputs drawn from SEED."""
    if not reference:
        return run_alone(test, limit, build, box)
    with tempfile.TemporaryDirectory(prefix="judge-") as verdicts:
        verdicts = pathlib.Path(verdicts)
        os.chmod(verdicts, 0o755)
        box.give(verdicts, judge=True)
        record_read, record_write = os.pipe()
        counter = LaunchCounter(preload) if preload else None
        env = dict(test.get("env", {}), OMP_WAIT_POLICY="passive", TUT_GRADE_SEED=str(seed),
                   TUT_GRADE_RECORD_FD=str(record_write),
                   **(counter.env if counter else {}))
        report = pathlib.Path("/tmp/cases.xml")
        judge_report = verdicts / "judge.xml"
        try:  # the judge first, reading, then the submission's process, writing
            judge = box.start([*reference[0], f"--gtest_output=xml:{judge_report}"], verdicts,
                              dict(reference[1], **JUDGE_THREADS, TUT_GRADE_SEED=str(seed),
                                   TUT_GRADE_JUDGE_FD=str(record_read)),
                              View(build="hidden", readable=(reference[2],), writable=(verdicts,), judge=True),
                              pass_fds=[record_read])
            student = box.start([*test["cmd"], f"--gtest_output=xml:{report}"], test.get("workdir") or build, env,
                                pass_fds=[record_write, *(counter.handed if counter else [])], fetch=report)
        finally:
            for fd in [record_read, record_write, *(counter.handed if counter else [])]:
                os.close(fd)
        ran = student.wait(limit)
        judged = judge.wait(limit)
        if ran.timed_out:
            return ran_too_long(limit)
        failed, first = failures(read_capped(judge_report))
        found = Outcome("pass", "", ran.seconds, tuple(failed), counter.counts() if counter else {})
        if judged.code == SKIP:
            found.status, found.message = "skip", last_line(judged.output) or "skipped"
        elif judged.code != 0 or judged.timed_out:
            found.status = "fail"
            found.message = (first or grading_line(judged.output) or last_line(judged.output)
                             or f"the reference run exited {judged.code}")
        own = ran.fetched
        return verdict(found, ran, claimed_success(ran.code, own), counter is not None, box)


def read_capped(path: pathlib.Path, most: int = sandboxing.FETCH_BYTES) -> bytes:
    """Up to MOST bytes of PATH where it is a regular file (else none)."""
    try:
        if path.is_symlink() or not path.is_file():
            return b""
        with path.open("rb") as f:
            return f.read(most)
    except OSError:
        return b""


def left_behind(ran) -> str:
    """What RAN left running, if anything, in words."""
    if not ran.left and not ran.escaped:
        return ""
    return (f"left {ran.left + ran.escaped} process(es) running after its test ended (the sandbox killed them"
            + (f"; {ran.escaped} of them outlived the sandbox's teardown" if ran.escaped else "") + ")")


def verdict(judged: Outcome, ran, claims: str, counted: bool, box) -> Outcome:
    """The stage's outcome: the reference run's (JUDGED), unless the test process that ran the
    submission (RAN) crashed, failed on its own, claimed a success the reference run denies,
    left processes running, ended the sandbox's monitor, or kept the launch counter from
    reporting. Processes left behind are named whatever the outcome."""
    left = left_behind(ran)
    also = f"; it also {left}" if left else ""
    if judged.status == "skip":
        return judged
    if box.active and not ran.monitored:
        return dataclasses.replace(judged, status="gaming", message="its code ended the sandbox's monitor (the process "
                                   "that reports how the test ended)" + also)
    if killed_by_signal(ran.code) and signal_number(ran.code) != signal.SIGPIPE:  # SIGPIPE: the judge stopped reading
        return dataclasses.replace(judged, status="crash", message=crash_message(ran, box) + also)
    if judged.status == "fail":
        if claims:
            return dataclasses.replace(judged, status="gaming", message=f"its test process claimed success ({claims}) "
                                       f"while the reference run, outside it, found: {judged.message}{also}")
        return dataclasses.replace(judged, message=judged.message + also)
    if ran.code != 0:
        return dataclasses.replace(judged, status="fail",
                                   message=(last_line(ran.output) or f"its test process exited {ran.code}") + also)
    why = left
    if not why and counted and judged.counts.get("taken"):
        why = "its code read the launch counter's token before the counter could (to forge the counter's report?)"
    elif not why and counted and not judged.counts:
        why = ("its test process ended without the launch counter's report, which the counter writes as the "
               "process exits normally (did the stage end the process itself?)")
    return dataclasses.replace(judged, status="gaming", message=why) if why else judged


class LaunchCounter:
    """The launch counter's pipes for one test (see launch_counter.cpp): one for its report, and
    one that holds its token, written once."""

    def __init__(self, library: str):
        self.token = secrets.token_hex(16)
        self.report_read, report_write = os.pipe()
        token_read, token_write = os.pipe()
        os.write(token_write, self.token.encode())
        os.close(token_write)
        self.handed = [report_write, token_read]  # the ends the test process gets
        self.env = {"LD_PRELOAD": library, "TUT_GRADE_COUNTS_FD": str(report_write),
                    "TUT_GRADE_TOKEN_FD": str(token_read)}

    def counts(self) -> dict:
        return read_counts(self.report_read, self.token)


def run_alone(test: dict, limit: float, build: pathlib.Path, box) -> Outcome:
    """A test that is not a stage's own GoogleTest program (an idea check, a sanitizer run):
    in the sandbox, judged by its exit code. The OpenMP race check runs without the limit on each
    process's data memory: ThreadSanitizer reserves terabytes of address space as it starts."""
    race = any("omp_race" in part for part in test["cmd"])
    ran = box.run(test["cmd"], test.get("workdir") or build, test.get("env", {}), limit, data_limit=not race)
    left = left_behind(ran)
    if ran.timed_out:
        return ran_too_long(limit)
    if ran.code == SKIP:
        return Outcome("skip", last_line(ran.output) or "skipped", ran.seconds)
    if ran.code == 0:
        return Outcome("gaming", left, ran.seconds) if left else Outcome("pass", "", ran.seconds)
    also = f"; it also {left}" if left else ""
    if killed_by_signal(ran.code):
        return Outcome("crash", crash_message(ran, box) + also, ran.seconds)
    return Outcome("fail", (last_line(ran.output) or f"exit {ran.code}") + also, ran.seconds)


def ran_too_long(limit: float) -> Outcome:
    return Outcome("timeout", f"still running after {limit:g} s (an endless loop or a deadlock?)", limit)


def killed_by_signal(code: int) -> bool:
    return code < 0 or code >= 128


def signal_number(code: int) -> int:
    return -code if code < 0 else code - 128


def crash_message(ran, box) -> str:
    number = signal_number(ran.code)
    name = signal.Signals(number).name if number in signal.valid_signals() else f"signal {number}"
    memory = ""
    if ran.out_of_memory:
        memory = f" (the sandbox reached its memory limit, {box.memory / (1 << 30):.1f} GiB)"
    elif "bad_alloc" in ran.output:
        memory = " (std::bad_alloc: it ran out of the sandbox's memory limit?)"
    return f"killed by {name}{memory}" + (f" after: {last_line(ran.output)}" if ran.output.strip() else "")


def claimed_success(code: int, report: bytes) -> str:
    """What the submission's own test process said of itself, if it said it passed (REPORT: its
    GoogleTest report, as much of it as came back)."""
    said = []
    if code == 0:
        said.append("exit code 0")
    if not failures(report)[0] and b"<testcase" in report:
        said.append("its test report lists no failure")
    return ", ".join(said)


def failures(report: bytes):
    """([failed case names], the first failure's message) from GoogleTest's XML. A report that
    declares anything (<!DOCTYPE, <!ENTITY) is not parsed: it lists none."""
    if not report or re.search(rb"<!(DOCTYPE|ENTITY)", report, re.I):
        return [], ""
    try:
        cases = ET.fromstring(report).iter("testcase")
    except ET.ParseError:
        return [], ""
    failed, first = [], ""
    for case in cases:
        failure = case.find("failure")
        if failure is not None:
            failed.append(str(case.get("name")))
            message = " ".join((failure.get("message") or failure.text or "").split())
            first = first or shortened(f"{case.get('name')}: {message}")
    return failed, first


def read_counts(fd: int, token: str) -> dict:
    """The launch counter's report on its pipe, the one with TOKEN: {} if none came, {'taken': 1}
    if the counter found its token gone. At most 64 KiB of what the pipe holds now."""
    data = sandboxing.read_all(fd, 1 << 16, wait=0.5)
    lines = [line.split() for line in data.decode(errors="replace").splitlines() if line.startswith("counts ")]
    if any(words[1:2] == ["taken"] for words in lines):
        return {"taken": 1}
    words = next((words[2:] for words in lines if words[1:2] == [token]), [])
    try:
        return {words[i]: int(words[i + 1]) for i in range(0, len(words) - 1, 2)}
    except ValueError:
        return {}


def shortened(message: str, most: int = 400) -> str:
    """MESSAGE cut to MOST characters, keeping its "-> edit FILE" hint whole."""
    if len(message) <= most:
        return message
    hint = message[message.rfind("-> edit"):] if "-> edit" in message else ""
    return message[:most - len(hint) - 5] + " ... " + hint


def grading_line(output: str) -> str:
    """The reference run's own word on a missing output (common/graded.cpp)."""
    lines = [line.strip() for line in output.splitlines() if line.startswith("grading: ")]
    return lines[0][:300] if lines else ""


def last_line(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""
