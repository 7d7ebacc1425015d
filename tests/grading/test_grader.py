#!/usr/bin/env python3
"""Grades the synthetic submissions of make_submissions.py end to end with tools/grade.py
(chapter 02-matmul, --sanitize, a 20 s limit per test) and checks the report: each planted
mistake gives the status and message it must, every other stage passes (or, without a GPU, its
GPU stages are skipped), the files a student must not change are listed as ignored, and the
CSV, Markdown and JUnit totals agree.

usage: test_grader.py GRADING_BUILD_DIR
"""
import collections
import csv
import pathlib
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


def main(build: pathlib.Path) -> int:
    with tempfile.TemporaryDirectory(prefix="graded-") as scratch:
        scratch = pathlib.Path(scratch)
        make_submissions.write(scratch / "submissions")
        out = scratch / "report"
        done = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), str(scratch / "submissions"),
                               "--chapter", "02-matmul", "--timeout", "20", "--sanitize", "--out", str(out),
                               "--build", str(build)], capture_output=True, text=True)
        print(done.stderr[-6000:] + done.stdout)
        if done.returncode != 0:
            print(f"FAIL: grade.py exited {done.returncode}")
            return 1
        rows = list(csv.DictReader(open(out / "report.csv")))
        markdown = (out / "report.md").read_text()
        junit = ET.parse(out / "report.junit.xml").getroot()
    problems = []
    gpu = any(r["submission"] == "all_correct" and r["side"] == "gpu" and r["status"] == "pass" for r in rows)
    print(f"graded {'with' if gpu else 'without'} a GPU")
    by = {(r["submission"], r["stage"]): r for r in rows}
    for name, (_, expected) in make_submissions.SUBMISSIONS.items():
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
    for ignored in ("tests/02-matmul/matmul_test_support.h", "common/validate.cpp"):
        if ignored not in markdown:
            problems.append(f"edits_tests_and_common: {ignored} is not listed as ignored")
    count = collections.Counter(r["status"] for r in rows)
    failing = sum(n for s, n in count.items() if s not in ("pass", "skip"))
    if (int(junit.get("tests")), int(junit.get("failures")), int(junit.get("skipped"))) != (len(rows), failing, count["skip"]):
        problems.append(f"JUnit totals {dict(junit.attrib)} differ from the CSV's: {len(rows)} rows, {dict(count)}")
    if f"{count['pass']} pass" not in markdown:
        problems.append("the Markdown totals differ from the CSV's")
    for p in problems:
        print("FAIL:", p)
    print(f"{len(rows)} rows checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(pathlib.Path(sys.argv[1]).resolve()))
