#!/usr/bin/env python3
"""Grades the synthetic submissions of make_submissions.py end to end with tools/grade.py
(chapter 02-matmul, a 20 s limit per test, --require-sandbox, 4 GiB of memory; the folder of
them all, then the out-of-bounds one again with --sanitize and --perf) and checks the reports:
each planted mistake and each attack on the grader gives the status and message it must, every
other stage passes (or, without a GPU, its GPU stages are skipped), the files a student must not
change are listed as ignored, a file the grader cannot read is reported, and the CSV, Markdown
and JUnit totals agree. And that the attacks got nowhere: the checkout's files and the other
submissions are as they were (checksums before and after), nothing was planted in the grading
build, no connection reached the port the test listens on, and no process is left running.

usage: test_grader.py GRADING_BUILD_DIR [KEEP_REPORTS_DIR]
"""
import collections
import csv
import hashlib
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import make_submissions  # noqa: E402

ROOT = make_submissions.ROOT
FAILING = {"fail", "crash", "timeout"}
GUARDED = ("common", "chapters", "tests", "tools", "solutions", "exercises", "slides", "meson.build", "README.md")


def expected_status(stage_side: str, want: str, gpu: bool):
    """The statuses a row may have: WANT's 'gpu-' prefix means only on a GPU (else skip)."""
    if want.startswith("gpu-"):
        return ({"fail", "crash"} if want == "gpu-fail" else {want[4:]}) if gpu else {"skip"}
    return {want}


def grade(build, submissions, out, *options):
    """Runs grade.py; (rows of report.csv, report.md, the JUnit root), or None if it failed."""
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), *map(str, submissions), "--chapter",
                           "02-matmul", "--timeout", "20", "--out", str(out), "--build", str(build),
                           "--require-sandbox", "--memory-limit", "4", *options], capture_output=True, text=True)
    print(done.stderr[-8000:] + done.stdout)
    if done.returncode != 0:
        print(f"FAIL: grade.py exited {done.returncode}")
        return None
    return (list(csv.DictReader(open(out / "report.csv"))), (out / "report.md").read_text(),
            ET.parse(out / "report.junit.xml").getroot())


def checksums(*places) -> dict:
    """path -> sha256 of every file under PLACES."""
    sums = {}
    for place in places:
        for path in sorted([place] if place.is_file() else place.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                sums[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return sums


def lingering() -> list:
    """The processes named as leaves_process_running names its child."""
    found = []
    for comm in pathlib.Path("/proc").glob("[0-9]*/comm"):
        try:
            if comm.read_text().strip() == "tut-lingerer":
                found.append(comm.parent.name)
        except OSError:
            pass
    return found


def refuses_before_grading() -> list:
    """Arguments that must stop grade.py at once, with one line and exit 2: an empty path (an
    unset variable would grade the checkout), an empty or unwritable --out or --build, and
    --require-sandbox where there is no bubblewrap."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="refused-") as scratch:
        places = ["--out", f"{scratch}/report", "--build", f"{scratch}/build"]
        solutions = str(ROOT / "solutions")
        for args in ([""], [solutions, "--out", ""], [solutions, "--out", "/proc/no-report"],
                     [solutions, "--build", "/proc/no-build"], [solutions, "--memory-limit", "0", *places]):
            done = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), *args], capture_output=True,
                                  text=True, timeout=60, cwd=scratch)
            if done.returncode != 2 or len(done.stderr.strip().splitlines()) != 1:
                problems.append(f"grade.py {args}: exit {done.returncode}, stderr {done.stderr[-300:]!r} "
                                "(expected exit 2, one line)")
        # no bubblewrap on PATH: --require-sandbox stops before anything is built
        done = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), solutions, "--require-sandbox",
                               *places], capture_output=True, text=True, timeout=60, cwd=scratch,
                              env=dict(os.environ, PATH=str(pathlib.Path(sys.executable).parent)))
        if done.returncode != 2 or "--require-sandbox: bubblewrap (bwrap) is not installed" not in done.stderr:
            problems.append(f"grade.py --require-sandbox without bwrap: exit {done.returncode}, {done.stderr[-300:]!r}")
    return problems


def main(build: pathlib.Path, keep=None) -> int:
    """The whole folder, then the out-of-bounds submission again with --sanitize and --perf (slow
    under the sanitizer: only this one)."""
    with tempfile.TemporaryDirectory(prefix="graded-") as scratch, socket.socket() as server:
        scratch = pathlib.Path(scratch)
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        targets = {"other": scratch / "submissions" / make_submissions.CLONED / "exercises" / "02-matmul" / "nat_triple_loop.cpp",
                   "root": ROOT, "build": build, "port": server.getsockname()[1]}
        make_submissions.write(scratch / "submissions", targets)
        guarded = [ROOT / g for g in GUARDED] + [scratch / "submissions"]
        before = checksums(*guarded)
        sanitized = [scratch / "submissions" / "writes_out_of_bounds"]
        first = grade(build, [scratch / "submissions"], scratch / "report")
        second = grade(build, sanitized, scratch / "report-sanitized", "--sanitize", "--perf")
        for report in ("report", "report-sanitized") if keep else ():
            shutil.copytree(scratch / report, pathlib.Path(keep) / report, dirs_exist_ok=True)
        problems = escapes(before, checksums(*guarded), build, server) + refuses_before_grading()
    if not first or not second:
        return 1
    problems += check(*first, make_submissions.every_submission(targets), expect_out_of_bounds=False)
    problems += check(*second, make_submissions.every_submission(targets), expect_out_of_bounds=True)
    for p in problems:
        print("FAIL:", p)
    print(f"{len(first[0]) + len(second[0])} rows checked, {len(problems)} problem(s)")
    return 1 if problems else 0


def escapes(before: dict, after: dict, build: pathlib.Path, server) -> list:
    """What the attacks on the grader achieved outside their sandbox (nothing, if all is well)."""
    problems = [f"{path} was changed, added or removed while grading" for path in sorted(set(before) | set(after))
                if before.get(path) != after.get(path)]
    if (build / "planted.txt").exists():
        problems.append(f"a submission wrote {build / 'planted.txt'} into the grading build")
    try:
        server.accept()[0].close()
        problems.append("a submission reached a server on the host's loopback")
    except BlockingIOError:
        pass
    if lingering():
        problems.append(f"processes a submission started are still running: {lingering()}")
    return problems


def check(rows, markdown, junit, submissions, expect_out_of_bounds):
    problems = []
    gpu = any(r["side"] == "gpu" and r["status"] == "pass" for r in rows)
    print(f"graded {'with' if gpu else 'without'} a GPU")
    if "sandbox: bubblewrap" not in markdown or "sandbox" not in junit.find("properties/property").attrib.values():
        problems.append("the report does not say that the sandbox was in place")
    for name, (_, expected) in submissions.items():
        alone = name not in make_submissions.SUBMISSIONS  # an attack: the attacked file alone
        if expect_out_of_bounds and name != "writes_out_of_bounds":
            continue
        if name == "writes_out_of_bounds" and not expect_out_of_bounds:
            expected = {}  # its tests pass: only the sanitizer sees the write
        stages = [r for r in rows if r["submission"] == name]
        if not stages:
            problems.append(f"{name}: not in the report")
        for r in stages:
            honest = ("missing", "not in the submission") if alone else ("gpu-pass" if r["side"] != "cpu" else "pass", "")
            want, piece = expected.get(r["stage"], honest)
            allowed = {"pass"} if want == "gpu-pass" and gpu else expected_status(r["side"], want, gpu)
            if r["side"] == "multigpu":
                allowed |= {"skip"}  # two GPUs needed
            if r["status"] not in allowed or (r["status"] != "skip" and piece not in r["message"]):
                problems.append(f"{name} {r['stage']}: {r['status']} ({r['message']}), expected {sorted(allowed)}"
                                + (f" with {piece!r}" if piece else ""))
    late = [r for r in rows if r["submission"] == make_submissions.UNREADABLE]  # named without .rar
    if not expect_out_of_bounds and (not late or any(r["status"] != "missing" or "could not read" not in r["message"]
                                                     for r in late)):
        problems.append(f"{make_submissions.UNREADABLE}.rar: not reported as unreadable, one row per stage: {late}")
    edited = {r["submission"]: r["edited_files"].split() for r in rows}
    for changed in ("tests/02-matmul/matmul_test_support.h", "common/validate.cpp"):
        if not expect_out_of_bounds and (changed not in edited.get("edits_tests_and_common", [])
                                         or f"**{changed}** (flagged" not in markdown):
            problems.append(f"edits_tests_and_common: {changed} is not reported as edited and flagged")
    if edited.get("wrong_stage"):  # a clone: its solutions/ and the rest are the checkout's own files
        problems.append(f"wrong_stage: files reported as edited that are the checkout's: {edited['wrong_stage'][:5]}")
    count = collections.Counter(r["status"] for r in rows)
    wrong = count["fail"] + count["gaming"]  # JUnit failures; the other failing statuses are errors
    errors = sum(n for s, n in count.items() if s not in ("pass", "skip")) - wrong
    if [int(junit.get(k)) for k in ("tests", "failures", "errors", "skipped")] != [len(rows), wrong, errors, count["skip"]]:
        problems.append(f"JUnit totals {dict(junit.attrib)} differ from the CSV's: {len(rows)} rows, {dict(count)}")
    if f"{count['pass']} pass" not in markdown:
        problems.append("the Markdown totals differ from the CSV's")
    if expect_out_of_bounds and gpu:  # --perf: each passing GPU stage with a target has its fraction
        for r in rows:
            if r["status"] == "pass" and r["target"] and not r["fraction"]:
                problems.append(f"{r['submission']} {r['stage']}: --perf measured no fraction of the ceiling")
    return problems


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    if os.environ.get("TUT_DOCUMENTED_COMMANDS"):  # the suite that runs the documented commands runs this too
        print("skipped: inside the documented commands' scratch copy; the outer suite grades the same submissions")
        sys.exit(77)
    sys.exit(main(pathlib.Path(sys.argv[1]).resolve(), *sys.argv[2:]))
