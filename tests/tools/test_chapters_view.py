#!/usr/bin/env python3
"""The tools' view of the chapters (tools/chapters.py, read from chapters/chapters.list and the
stage lists) is the build's: every stage test that Meson defines in BUILD_DIR is a stage of the
Python view, with the same name, chapter suite and side, and the reverse; a stage with an IDEA
line has its -idea test (a check of its compiled code), and only such a stage; what a show=
selection of chapters.list names is a stage of its chapter or a variant of one (STAGE_VARIANT);
a CALLS line names other stage files of its chapter or a library the grader knows. A tool that
grades, plots or profiles by this view therefore sees exactly the stages that are built and tested.

Usage: test_chapters_view.py BUILD_DIR"""
import json
import re
import subprocess
import sys

from expectations import ROOT, expect, finish

sys.path.insert(0, str(ROOT / "tools"))
import chapters  # noqa: E402  (tools/ is not a package on the path by default)
from grading import gaming  # noqa: E402

PROCESSES_AND_THREADS = re.compile(r"-\d+-processes-\d+-threads$")  # an mpi stage's cases in other runs


def main(build):
    meson = chapters.tool("meson")
    listed = json.loads(subprocess.run([meson, "introspect", "--tests", build], capture_output=True, text=True,
                                       check=True).stdout)
    folders = {c.name: folder for folder, c in chapters.read_chapters().items()}
    built = set()  # (test, chapter, side suite, list/*/name filter) of every stage test Meson runs
    ideas = set()
    for t in listed:
        name, suites = t["name"], {s.split(":")[-1] for s in t["suite"]}  # "project:heat"
        chapter = next((c for c in folders if c in suites), None)
        filters = [a for a in t["cmd"] if a.startswith("--gtest_filter=") and "/*/" in a]
        other_run = name.startswith("sanitize-") or PROCESSES_AND_THREADS.search(name)  # the stage's cases again
        if chapter and filters and not other_run:
            built.add((name, chapter, "cpu" if "cpu" in suites else "gpu", filters[0].split("=", 1)[1]))
        if name.endswith("-idea") and t["protocol"] != "gtest":  # not a GoogleTest case named so
            ideas.add(name[:-len("-idea")])
    stages = chapters.read_stages()
    viewed = {(s.test, s.chapter, "cpu" if s.side in ("cpu", "mpi") else "gpu", f"{s.family}/*/{s.name}")
              for s in stages}
    expect(f"{len(viewed)} stages in the Python view, {len(built)} stage tests in the build", len(viewed) == len(built))
    for missing in sorted(viewed - built):
        expect(f"the Python view's stage {missing} is a Meson test", False)
    for extra in sorted(built - viewed):
        expect(f"the Meson test {extra} is a stage of the Python view", False)
    expect("every stage test matches: name, chapter, side, GoogleTest filter", viewed == built)
    with_idea = {s.test for s in stages if s.has_idea}
    expect(f"the stages with an IDEA line are those with an -idea test ({len(with_idea)})", with_idea == ideas)
    expect("every chapter of chapters.list has stages", all(any(s.folder == f for s in stages) for f in folders.values()))
    for folder, c in chapters.read_chapters().items():  # a show= selection names stages or their variants
        names = {s.name for s in stages if s.folder == folder}
        for selection, shown in c.shows.items():
            unknown = [n for n in shown if n not in names and not any(n.startswith(s + "_") for s in names)]
            expect(f"{folder}'s selection {selection} names its stages or their variants"
                   + (f" (not: {', '.join(unknown)})" if unknown else ""), not unknown)
    for s in (s for s in stages if s.calls):  # other stage files of its chapter, or a library the grader knows
        files = {t.file for t in stages if t.folder == s.folder} - {s.file}
        wrong = [c for c in s.calls if c not in files and c not in gaming.LIBRARIES]
        expect(f"{s.folder} {s.key}'s CALLS line names other stage files or {', '.join(gaming.LIBRARIES)}"
               + (f" (not: {', '.join(wrong)})" if wrong else ""), not wrong)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: test_chapters_view.py BUILD_DIR", file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1])
    finish()
