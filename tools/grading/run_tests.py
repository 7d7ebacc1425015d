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
import secrets
import select
import shutil
import signal
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET

from . import sandbox as sandboxing
from chapters import tool

SKIP = 77
CACHING_CASE = "RecomputesWhenOnlyTheInputsChange"  # the tests' case that catches cached results


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
    LD_LIBRARY_PATH, which would load the submission's libmatmult.so). A test that Meson starts
    through another program (chapter 05's mpi stage, through mpirun: three processes) has no
    judge: it is judged by its exit code, as an idea check is."""
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
            commands[test["name"]] = ([str(copy), *test["cmd"][1:]], env)
    return commands


def run(test: dict, limit: float, build: pathlib.Path, box, preload: str = "", reference=None, seed=0) -> Outcome:
    """TEST in the sandbox BOX, with the launch counter PRELOAD if given; judged by the REFERENCE
    program's run (command, environment) when it is given, on inputs drawn from SEED."""
    if not reference:
        return run_alone(test, limit, build, box)
    with tempfile.TemporaryDirectory(prefix="grade-") as scratch:
        scratch = pathlib.Path(scratch)
        (scratch / "tmp").mkdir()  # the test process's /tmp: its own report lands there
        record_read, record_write = os.pipe()
        counter = LaunchCounter(preload) if preload else None
        env = dict(test.get("env", {}), TUT_GRADE_SEED=str(seed), TUT_GRADE_RECORD_FD=str(record_write),
                   **(counter.env if counter else {}))
        report_inside = ("/tmp" if box.active else str(scratch / "tmp")) + "/cases.xml"
        cwd = test.get("workdir") or build
        cmd, full_env, limits = box.wrap([*test["cmd"], f"--gtest_output=xml:{report_inside}"], cwd, env,
                                         tmp=scratch / "tmp")
        handed = [record_write, *(counter.handed if counter else [])]
        start = time.monotonic()
        student = subprocess.Popen(cmd, cwd=cwd, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True, errors="replace", start_new_session=True, preexec_fn=limits,
                                   pass_fds=handed)
        for fd in handed:
            os.close(fd)
        with open(scratch / "judge.out", "w") as judge_out:
            judge = subprocess.Popen([*reference[0], f"--gtest_output=xml:{scratch / 'judge.xml'}"], cwd=cwd,
                                     env=dict(os.environ, **reference[1], TUT_GRADE_SEED=str(seed),
                                              TUT_GRADE_JUDGE_FD=str(record_read)),
                                     stdout=judge_out, stderr=subprocess.STDOUT, pass_fds=[record_read],
                                     start_new_session=True)
        os.close(record_read)
        output, timed_out = finish(student, limit)
        _, judge_timed_out = finish(judge, limit)
        seconds = time.monotonic() - start
        if timed_out:
            return ran_too_long(limit)
        failed, first = failures(scratch / "judge.xml")
        judge_output = (scratch / "judge.out").read_text(errors="replace")
        found = Outcome("pass", "", seconds, tuple(failed), counter.counts() if counter else {})
        if judge.returncode == SKIP:
            found.status, found.message = "skip", last_line(judge_output) or "skipped"
        elif judge.returncode != 0 or judge_timed_out:
            found.status = "fail"
            found.message = (first or grading_line(judge_output) or last_line(judge_output)
                             or f"the reference run exited {judge.returncode}")
        return verdict(found, student.returncode, output,
                       claimed_success(student.returncode, scratch / "tmp" / "cases.xml"), counter is not None)


def verdict(judged: Outcome, code: int, output: str, claims: str, counted: bool) -> Outcome:
    """The stage's outcome: the reference run's (JUDGED), unless the test process that ran the
    submission (exit CODE, OUTPUT) crashed, failed on its own, claimed a success the reference
    run denies, left processes running, or kept the launch counter from reporting."""
    left = sandboxing.leftover(output)
    output = sandboxing.strip(output)
    if judged.status == "skip":
        return judged
    if killed_by_signal(code) and signal_number(code) != signal.SIGPIPE:  # SIGPIPE: the judge stopped reading
        return dataclasses.replace(judged, status="crash", message=crash_message(code, output))
    if judged.status == "fail":
        return dataclasses.replace(judged, status="gaming", message=f"its test process claimed success ({claims}) "
                                   f"while the reference run, outside it, found: {judged.message}") if claims else judged
    if code != 0:
        return dataclasses.replace(judged, status="fail", message=last_line(output) or f"its test process exited {code}")
    why = ""
    if left:
        why = f"left {left} process(es) running after its test ended (the sandbox killed them)"
    elif counted and judged.counts.get("taken"):
        why = "its code read the launch counter's token before the counter could (to forge the counter's report?)"
    elif counted and not judged.counts:
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
    in the sandbox, judged by its exit code. The OpenMP race check runs without the data memory
    limit: ThreadSanitizer reserves terabytes of address space as it starts."""
    cwd = test.get("workdir") or build
    cmd, env, limits = box.wrap(test["cmd"], cwd, test.get("env", {}))
    if any("omp_race" in part for part in test["cmd"]):
        limits = None
    start = time.monotonic()
    process = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               errors="replace", start_new_session=True, preexec_fn=limits)
    output, timed_out = finish(process, limit)
    output = sandboxing.strip(output)
    seconds = time.monotonic() - start
    code = process.returncode
    if timed_out:
        return ran_too_long(limit)
    if code == 0:
        return Outcome("pass", "", seconds)
    if code == SKIP:
        return Outcome("skip", last_line(output) or "skipped", seconds)
    if killed_by_signal(code):
        return Outcome("crash", crash_message(code, output), seconds)
    return Outcome("fail", last_line(output) or f"exit {code}", seconds)


def ran_too_long(limit: float) -> Outcome:
    return Outcome("timeout", f"still running after {limit:g} s (an endless loop or a deadlock?)", limit)


def finish(process, limit: float):
    """(its output, whether it ran past LIMIT and was killed with every process of its group)."""
    try:
        output, _ = process.communicate(timeout=limit)
        return output or "", False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return output or "", True


def killed_by_signal(code: int) -> bool:
    return code < 0 or code >= 128


def signal_number(code: int) -> int:
    return -code if code < 0 else code - 128


def crash_message(code: int, output: str) -> str:
    number = signal_number(code)
    name = signal.Signals(number).name if number in signal.valid_signals() else f"signal {number}"
    memory = " (std::bad_alloc: it ran out of the sandbox's memory limit?)" if "bad_alloc" in output else ""
    return f"killed by {name}{memory}" + (f" after: {last_line(output)}" if output.strip() else "")


def claimed_success(code: int, report: pathlib.Path) -> str:
    """What the submission's own test process said of itself, if it said it passed."""
    said = []
    if code == 0:
        said.append("exit code 0")
    if report.is_file() and not failures(report)[0] and "<testcase" in report.read_text(errors="replace"):
        said.append("its test report lists no failure")
    return ", ".join(said)


def failures(report: pathlib.Path):
    """([failed case names], the first failure's message) from GoogleTest's XML."""
    if not report.is_file():
        return [], ""
    try:
        cases = ET.parse(report).getroot().iter("testcase")
    except ET.ParseError:
        return [], ""
    failed, first = [], ""
    for case in cases:
        failure = case.find("failure")
        if failure is not None:
            failed.append(case.get("name"))
            message = " ".join((failure.get("message") or failure.text or "").split())
            first = first or shortened(f"{case.get('name')}: {message}")
    return failed, first


def shortened(message: str, most: int = 400) -> str:
    """MESSAGE cut to MOST characters, keeping its "-> edit FILE" hint whole."""
    if len(message) <= most:
        return message
    hint = message[message.rfind("-> edit"):] if "-> edit" in message else ""
    return message[:most - len(hint) - 5] + " ... " + hint


def read_counts(fd: int, token: str) -> dict:
    """The launch counter's report on its pipe, the one with TOKEN: {} if none came, {'taken': 1}
    if the counter found its token gone. What the pipe holds now, without waiting for a writer
    that the sandbox has not yet ended."""
    data = b""
    while select.select([fd], [], [], 0.5)[0]:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    os.close(fd)
    lines = [line.split() for line in data.decode(errors="replace").splitlines() if line.startswith("counts ")]
    if any(words[1:2] == ["taken"] for words in lines):
        return {"taken": 1}
    words = next((words[2:] for words in lines if words[1:2] == [token]), [])
    try:
        return {words[i]: int(words[i + 1]) for i in range(0, len(words) - 1, 2)}
    except ValueError:
        return {}


def grading_line(output: str) -> str:
    """The reference run's own word on a missing output (common/graded.cpp)."""
    lines = [line.strip() for line in output.splitlines() if line.startswith("grading: ")]
    return lines[0][:300] if lines else ""


def last_line(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""
