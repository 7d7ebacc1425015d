#!/usr/bin/env python3
"""Grades the synthetic submissions of make_submissions.py end to end with tools/grade.py
(chapter 02-matmul, a 20 s limit per test; the folder of them all, then the out-of-bounds one
again with --sanitize and --perf) and checks the reports: each planted mistake gives the status
and message it must, every other stage passes (or, without a GPU, its GPU stages are skipped),
the files a student must not change are listed as ignored, a file the grader cannot read is
reported, and the CSV, Markdown and JUnit totals agree.

usage: test_grader.py GRADING_BUILD_DIR [KEEP_REPORTS_DIR]
"""
import collections
import csv
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import make_submissions  # noqa: E402

ROOT = make_submissions.ROOT
FAILING = {"fail", "crash", "timeout"}


def expected_status(stage_side: str, want: str, gpu: bool):
    """The statuses a row may have: WANT's 'gpu-' prefix means only on a GPU (else skip)."""
    if want.startswith("gpu-"):
        return ({"fail", "crash"} if want == "gpu-fail" else {want[4:]}) if gpu else {"skip"}
    return {want}


def grade(build, submissions, out, *options):
    """Runs grade.py; (rows of report.csv, report.md, the JUnit root), or None if it failed."""
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), *map(str, submissions), "--chapter",
                           "02-matmul", "--timeout", "20", "--out", str(out), "--build", str(build), *options],
                          capture_output=True, text=True)
    print(done.stderr[-8000:] + done.stdout)
    if done.returncode != 0:
        print(f"FAIL: grade.py exited {done.returncode}")
        return None
    return (list(csv.DictReader(open(out / "report.csv"))), (out / "report.md").read_text(),
            ET.parse(out / "report.junit.xml").getroot())


def main(build: pathlib.Path, keep=None) -> int:
    """The whole folder, then the out-of-bounds submission and all_correct again with --sanitize
    and --perf (slow under the sanitizer: only these two)."""
    with tempfile.TemporaryDirectory(prefix="graded-") as scratch:
        scratch = pathlib.Path(scratch)
        make_submissions.write(scratch / "submissions")
        sanitized = [scratch / "submissions" / "writes_out_of_bounds", scratch / "submissions" / "all_correct.tar.gz"]
        first = grade(build, [scratch / "submissions"], scratch / "report")
        second = grade(build, sanitized, scratch / "report-sanitized", "--sanitize", "--perf")
        for report in ("report", "report-sanitized") if keep else ():
            shutil.copytree(scratch / report, pathlib.Path(keep) / report, dirs_exist_ok=True)
    if not first or not second:
        return 1
    problems = check(*first, expect_out_of_bounds=False) + check(*second, expect_out_of_bounds=True)
    for p in problems:
        print("FAIL:", p)
    print(f"{len(first[0]) + len(second[0])} rows checked, {len(problems)} problem(s)")
    return 1 if problems else 0


def check(rows, markdown, junit, expect_out_of_bounds):
    problems = []
    gpu = any(r["submission"] == "all_correct" and r["side"] == "gpu" and r["status"] == "pass" for r in rows)
    print(f"graded {'with' if gpu else 'without'} a GPU")
    for name, (_, expected) in make_submissions.SUBMISSIONS.items():
        if expect_out_of_bounds and name not in ("writes_out_of_bounds", "all_correct"):
            continue
        if name == "writes_out_of_bounds" and not expect_out_of_bounds:
            expected = {}  # its tests pass: only the sanitizer sees the write
        stages = [r for r in rows if r["submission"] == name]
        if not stages:
            problems.append(f"{name}: not in the report")
        for r in stages:
            want, piece = expected.get(r["stage"], ("gpu-pass" if r["side"] != "cpu" else "pass", ""))
            allowed = {"pass"} if want == "gpu-pass" and gpu else expected_status(r["side"], want, gpu)
            if r["side"] == "multigpu":
                allowed |= {"skip"}  # two GPUs needed
            if r["status"] not in allowed or (r["status"] != "skip" and piece not in r["message"]):
                problems.append(f"{name} {r['stage']}: {r['status']} ({r['message']}), expected {sorted(allowed)}"
                                + (f" with {piece!r}" if piece else ""))
    late = [r for r in rows if r["submission"] == make_submissions.UNREADABLE + ".rar"]
    if not expect_out_of_bounds and (not late or any(r["status"] != "missing" or "could not read" not in r["message"]
                                                     for r in late)):
        problems.append(f"{make_submissions.UNREADABLE}.rar: not reported as unreadable, one row per stage: {late}")
    for ignored in ("tests/02-matmul/matmul_test_support.h", "common/validate.cpp"):
        if not expect_out_of_bounds and ignored not in markdown:
            problems.append(f"edits_tests_and_common: {ignored} is not listed as ignored")
    count = collections.Counter(r["status"] for r in rows)
    failing = sum(n for s, n in count.items() if s not in ("pass", "skip"))
    if (int(junit.get("tests")), int(junit.get("failures")), int(junit.get("skipped"))) != (len(rows), failing, count["skip"]):
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
