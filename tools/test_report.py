#!/usr/bin/env python3
"""The report of the last `meson test` run in a build directory, stage by stage: one row per
Meson test, and under each GoogleTest program one row per GoogleTest case, each with its
result and its first failure message (or why it was skipped).

Meson's own testlog.junit.xml merges GoogleTest's files and its totals are wrong; this report
counts every row itself, and carries the reason of a failing program that is not GoogleTest
(a driver run, a script) instead of an empty <failure/>.

Usage: test_report.py BUILD_DIR [--out DIR]
  prints the report as Markdown, and writes it as DIR/test-report.md, .csv and .junit.xml
  (DIR defaults to BUILD_DIR/meson-logs)
"""
import csv
import io
import json
import os
import pathlib
import re
import xml.etree.ElementTree as ET

from plotting import InputError, Parser, run as run_tool  # "run" names a test run below

PASSED, FAILED, SKIPPED = "pass", "FAIL", "skip"


def meson_result(result: str) -> str:
    return PASSED if result in ("OK", "EXPECTEDFAIL") else SKIPPED if result == "SKIP" else FAILED


def one_line(text: str, limit: int = 400) -> str:
    """Whitespace collapsed; a long message keeps its start and its end (where the tests say
    which file to edit)."""
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 110] + " ... " + text[-105:]


def reason(run: dict) -> str:
    """Why a test that is not GoogleTest's failed or skipped, from what it printed."""
    if run["result"] == "TIMEOUT":
        return f"timed out after {run['duration']:.0f} s"
    stderr = [line for line in (run.get("stderr") or "").splitlines() if line.strip()]
    stdout = [line for line in (run.get("stdout") or "").splitlines() if line.strip()]
    flagged = [line for line in stdout if line.lstrip().startswith(("FAIL", "skipped"))]
    text = (stderr or flagged or stdout[-1:] or [""])[0]
    exit_note = f" (exit {run['returncode']})" if run["result"] not in ("OK", "SKIP") else ""
    return one_line(text) + exit_note


def assertion_message(text: str) -> str:
    """The test's own words out of GoogleTest's "file:line / Value of: x / Actual: false (...)
    / Expected: true" wrapping."""
    found = re.search(r"Actual: false \((.*)\)\s*Expected: true", text or "", re.DOTALL)
    return found.group(1) if found else re.sub(r"^\S+:\d+\n", "", text or "")


def gtest_cases(xml_path: pathlib.Path, started: float):
    """(case, result, message) for each case in the XML GoogleTest wrote for this run; None
    when there is no such file, or only one older than the run (the program died first)."""
    if not xml_path.exists() or xml_path.stat().st_mtime < started - 1:
        return None
    cases = []
    try:
        root = ET.parse(xml_path).getroot()
    except ET.ParseError as e:  # a SyntaxError, which run() would not turn into one line
        raise InputError(f"{xml_path}: not GoogleTest's XML ({e})") from None
    for case in root.iter("testcase"):
        name = f"{case.get('classname')}.{case.get('name')}"
        failure, skipped = case.find("failure"), case.find("skipped")
        if failure is not None:
            cases.append((name, FAILED, one_line(assertion_message(failure.get("message") or failure.text))))
        elif skipped is not None or case.get("result") == "skipped":
            cases.append((name, SKIPPED, one_line(skipped.get("message") if skipped is not None else "")))
        else:
            cases.append((name, PASSED, ""))
    return cases


def collect(build: pathlib.Path):
    """[(test, [(case, result, message), ...], result, message)] in the order Meson ran them."""
    log = build / "meson-logs" / "testlog.json"
    if not log.exists():
        raise InputError(f"{log} not found: run `meson test -C {build}` first")
    tests = []
    try:
        runs = [json.loads(line) for line in log.read_text().splitlines()]
    except ValueError as e:  # UnicodeDecodeError too: a binary file
        why = "not text" if isinstance(e, UnicodeDecodeError) else e
        raise InputError(f"{log}: not Meson's test log ({why})") from None
    for run in runs:
        name = run["name"].rsplit(":", 1)[-1]  # "heat+cpu - project:heat-v0" -> "heat-v0"
        result = meson_result(run["result"])
        cases = gtest_cases(build / f"{name}.xml", run["starttime"])  # where Meson has GoogleTest write it
        message = "" if result == PASSED else reason(run)
        failed_cases = [m for _, r, m in cases or [] if r == FAILED]
        if failed_cases:
            message = failed_cases[0]
        elif cases and result == FAILED:
            cases.append(("(the program)", FAILED, message))  # it failed outside any case
        tests.append((name, cases or [], result, message))
    return tests


def rows(tests):
    """Flat rows: the Meson test (case "-"), then its GoogleTest cases."""
    for name, cases, result, message in tests:
        yield name, "-", result, message
        for case, case_result, case_message in cases:
            yield name, case, case_result, case_message


def totals(results):
    return {r: sum(1 for x in results if x == r) for r in (PASSED, FAILED, SKIPPED)}


def summary(tests) -> str:
    meson = totals([t[2] for t in tests])
    cases = totals([r for t in tests for _, r, _ in (t[1] or [(None, t[2], None)])])
    return (f"Meson tests: {meson[PASSED]} passed, {meson[FAILED]} failed, {meson[SKIPPED]} skipped; "
            f"test cases: {cases[PASSED]} passed, {cases[FAILED]} failed, {cases[SKIPPED]} skipped")


def markdown(tests) -> str:
    lines = ["| test | case | result | message |", "|---|---|---|---|"]
    for name, case, result, message in rows(tests):
        shown = message.replace("|", "\\|")
        lines.append(f"| {name if case == '-' else ''} | {case} | {result} | {shown} |")
    return "\n".join(lines) + "\n\n" + summary(tests) + "\n"


def csv_text(tests) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["test", "case", "result", "message"])
    writer.writerows(rows(tests))
    return out.getvalue()


def junit(tests) -> str:
    """One <testsuite> per Meson test: its GoogleTest cases, or one case for the test itself."""
    root = ET.Element("testsuites", name="meson test")
    for name, cases, result, message in tests:
        suite = ET.SubElement(root, "testsuite", name=name)
        for case, case_result, case_message in cases or [(name, result, message)]:
            element = ET.SubElement(suite, "testcase", classname=name, name=case)
            if case_result == FAILED:
                ET.SubElement(element, "failure", message=case_message)
            elif case_result == SKIPPED:
                ET.SubElement(element, "skipped", message=case_message)
        counted = totals([r for _, r, _ in cases or [(name, result, message)]])
        suite.set("tests", str(sum(counted.values())))
        suite.set("failures", str(counted[FAILED]))
        suite.set("skipped", str(counted[SKIPPED]))
        suite.set("errors", "0")
    for key in ("tests", "failures", "skipped", "errors"):
        root.set(key, str(sum(int(s.get(key)) for s in root)))
    return ET.tostring(root, encoding="unicode") + "\n"


def main(argv) -> int:
    parser = Parser(__doc__)
    parser.add_argument("build", metavar="BUILD_DIR")
    parser.add_argument("--out", metavar="DIR")
    args = parser.parse_args(argv)
    for option, value in (("BUILD_DIR", args.build), ("--out", args.out)):
        if value is not None and not value.strip():  # an unset variable: it would mean the current folder
            parser.error(f"{option} is empty")
    build = pathlib.Path(args.build)
    out = pathlib.Path(args.out) if args.out else build / "meson-logs"
    tests = collect(build)
    report = markdown(tests)
    out.mkdir(parents=True, exist_ok=True)
    (out / "test-report.md").write_text(report)
    (out / "test-report.csv").write_text(csv_text(tests))
    (out / "test-report.junit.xml").write_text(junit(tests))
    print(report, end="")
    print(f"written: {os.path.join(out, 'test-report')}.md, .csv and .junit.xml")
    return 0


if __name__ == "__main__":
    run_tool(main)
