"""Runs one Meson test of the grading build the way `meson test` would (its command, environment
and folder), but under the grader's own time limit and, for a GPU stage, with the launch
counter preloaded; reads GoogleTest's XML for the first failure message."""
import dataclasses
import json
import os
import pathlib
import signal
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET

from .stages import tool

SKIP = 77
CACHING_CASE = "RecomputesWhenOnlyTheInputsChange"  # the tests' case that catches cached results


@dataclasses.dataclass
class Outcome:
    status: str   # pass, fail, skip, timeout, crash
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


def run(test: dict, limit: float, build: pathlib.Path, preload: str = "") -> Outcome:
    cmd = list(test["cmd"])
    env = dict(os.environ, **test.get("env", {}))
    with tempfile.TemporaryDirectory(prefix="grade-") as scratch:
        report = pathlib.Path(scratch) / "cases.xml"
        counts_file = pathlib.Path(scratch) / "counts.txt"
        if test.get("protocol") == "gtest":
            cmd.append(f"--gtest_output=xml:{report}")
        if preload:
            env["LD_PRELOAD"] = preload
            env["TUT_GRADE_COUNTS"] = str(counts_file)
        start = time.monotonic()
        process = subprocess.Popen(cmd, cwd=test.get("workdir") or build, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)
        try:
            output, _ = process.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return Outcome("timeout", f"still running after {limit:g} s (an endless loop or a deadlock?)", limit)
        seconds = time.monotonic() - start
        failed, first = failures(report)
        counts = read_counts(counts_file)
    code = process.returncode
    if code == 0:
        return Outcome("pass", "", seconds, counts=counts)
    if code == SKIP:
        return Outcome("skip", last_line(output) or "skipped", seconds)
    if code < 0 or code >= 128:
        number = -code if code < 0 else code - 128
        name = signal.Signals(number).name if number in signal.valid_signals() else f"signal {number}"
        return Outcome("crash", f"killed by {name}" + (f" after: {last_line(output)}" if output.strip() else ""), seconds)
    return Outcome("fail", first or last_line(output) or f"exit {code}", seconds, tuple(failed), counts)


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
            first = first or f"{case.get('name')}: {message}"[:400]
    return failed, first


def read_counts(path: pathlib.Path) -> dict:
    if not path.is_file():
        return {}
    return {k: int(v) for k, v in (line.split() for line in path.read_text().splitlines() if line.strip())}


def last_line(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""
