#!/usr/bin/env python3
"""tools/test_report.py on a made-up `meson test` log: every row and total is right, a failing
GoogleTest case carries its own message, a failing program that is not GoogleTest carries the
line it printed, a skip its reason, and a GoogleTest file older than the run is not read."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from expectations import ROOT, expect, finish

STARTED = 1_800_000_000.0

GTEST_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="2" failures="1" name="AllTests">
  <testsuite name="Cpu/HeatStageTest" tests="2" failures="1">
    <testcase name="MatchesReference/v0" status="run" result="completed" classname="Cpu/HeatStageTest" />
    <testcase name="WritesEveryInteriorCell/v0" status="run" result="completed" classname="Cpu/HeatStageTest">
      <failure message="heat_test_support.h:91&#x0A;Value of: ok&#x0A;  Actual: false (stage v0 left 7 cells unwritten&#x0A;  -&gt; edit exercises/01-heat/v0_cpu.cpp (stage v0))&#x0A;Expected: true" type="" />
    </testcase>
  </testsuite>
</testsuites>
"""


def run_entry(name, result, returncode, stdout="", stderr=""):
    return {"name": f"heat+cpu - course:{name}", "result": result, "returncode": returncode, "stdout": stdout,
            "stderr": stderr, "starttime": STARTED, "duration": 1.0, "command": ["x"]}


with tempfile.TemporaryDirectory() as scratch:
    build = pathlib.Path(scratch)
    (build / "meson-logs").mkdir()
    (build / "heat-v0.xml").write_text(GTEST_XML)
    os.utime(build / "heat-v0.xml", (STARTED + 5, STARTED + 5))
    (build / "heat-v1.xml").write_text(GTEST_XML.replace("v0", "v1"))  # left by an earlier run
    os.utime(build / "heat-v1.xml", (STARTED - 3600, STARTED - 3600))
    entries = [
        run_entry("heat-v0", "FAIL", 1, stdout="[  FAILED  ] 1 test"),
        run_entry("heat-v1", "SKIP", 77, stdout="skipped: no GPU here\n"),
        run_entry("heat-tour-small", "FAIL", 1, stderr="heat3d: stage v0_omp does not match v0\n"),
        run_entry("heat-cli", "OK", 0),
    ]
    (build / "meson-logs" / "testlog.json").write_text("".join(json.dumps(e) + "\n" for e in entries))
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "test_report.py"), str(build)],
                         capture_output=True, text=True)
    expect("the report runs", run.returncode == 0)
    rows = {(r[0], r[1]): r for r in (line.split(",", 3) for line in
                                      (build / "meson-logs" / "test-report.csv").read_text().splitlines()[1:])}
    expect("a failing case carries its own words and the file to edit",
           "left 7 cells unwritten -> edit exercises/01-heat/v0_cpu.cpp" in
           rows[("heat-v0", "Cpu/HeatStageTest.WritesEveryInteriorCell/v0")][3])
    expect("the Meson test carries its first failing case's message",
           "left 7 cells unwritten" in rows[("heat-v0", "-")][3])
    expect("a skip carries its reason, and an older GoogleTest file is not read",
           rows[("heat-v1", "-")][2] == "skip" and "no GPU here" in rows[("heat-v1", "-")][3]
           and not any(key[0] == "heat-v1" and key[1] != "-" for key in rows))
    expect("a failing program that is not GoogleTest carries what it printed",
           "does not match v0" in rows[("heat-tour-small", "-")][3])
    junit = ET.parse(build / "meson-logs" / "test-report.junit.xml").getroot()
    expect("the JUnit totals count every case: 5 tests, 2 failures, 1 skipped",
           (junit.get("tests"), junit.get("failures"), junit.get("skipped")) == ("5", "2", "1"))
    expect("no JUnit failure is empty", all(f.get("message") for f in junit.iter("failure")))
    expect("the summary counts Meson tests and cases",
           "Meson tests: 1 passed, 2 failed, 1 skipped; test cases: 2 passed, 2 failed, 1 skipped" in run.stdout)

finish()
