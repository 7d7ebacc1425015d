#!/usr/bin/env python3
"""The lessons' generated tables are what their commands print (tools/lesson_tables.py --check on
this repository), and the check can fail: in a scratch copy of the tool, plot_heat.py and one
results file, a lesson whose marked table has one wrong cell fails --check naming its line; one
whose marker names no plot script, or a table the command does not print, is broken (exit 1);
rewriting puts the table right, after which --check passes."""
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

from expectations import ROOT, expect, finish

TOUR = "chapters/01-heat/results/h200_128.csv"
MARK = f"<!-- table: chapters/01-heat/plot_heat.py {TOUR} --markdown -->"


def check(root, *args):
    return subprocess.run([sys.executable, str(root / "tools" / "lesson_tables.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def main():
    done = check(ROOT, "--check")
    expect(f"this repository's generated tables are their commands' output: {done.stdout.strip().splitlines()[-1:]}",
           done.returncode == 0)
    with tempfile.TemporaryDirectory() as scratch:
        root = pathlib.Path(scratch)
        for name in ("tools/lesson_tables.py", "tools/plotting.py", "chapters/01-heat/plot_heat.py", TOUR):
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, root / name)
        printed = subprocess.run([sys.executable, str(root / "chapters/01-heat/plot_heat.py"), str(root / TOUR), "--markdown"],
                                 capture_output=True, text=True, check=True).stdout
        table = [line for line in printed.splitlines() if line.startswith("|")]
        cells = table[2].split("|")  # v0's row; its time, the fifth cell, one in the last digit off
        cells[4] = re.sub(r"\d(?=\s*$)", lambda d: str((int(d.group()) + 1) % 10), cells[4])
        wrong = table[:2] + ["|".join(cells)] + table[3:]
        expect("the made-up lesson's table has one wrong cell", wrong != table)
        lesson = root / "chapters" / "01-heat" / "README.md"
        lesson.write_text("# Lesson\n\n" + MARK + "\n" + "\n".join(wrong) + "\n\nText.\n")
        done = check(root, "--check")
        expect("--check fails on the wrong cell, naming the lesson's line",
               done.returncode == 1 and "chapters/01-heat/README.md:3:" in done.stdout)
        for marker, what in ((MARK.replace("plot_heat.py", "../../tools/lesson_tables.py"), "a command that is no plot script"),
                             (MARK.replace(" -->", " #9 -->"), "a table the command does not print")):
            lesson.write_text("# Lesson\n\n" + marker + "\n" + "\n".join(table) + "\n")
            done = check(root, "--check")
            expect(f"a marker with {what} is broken (exit 1)", done.returncode == 1 and "broken" in done.stdout
                   and "0 broken" not in done.stdout)
        lesson.write_text("# Lesson\n\n" + MARK + "\n" + "\n".join(wrong) + "\n\nText.\n")
        rewritten = check(root)
        expect("rewriting puts the table right", rewritten.returncode == 0 and "\n".join(table) in lesson.read_text()
               and lesson.read_text().endswith("\n\nText.\n"))
        expect("after which --check passes", check(root, "--check").returncode == 0)
    finish()


if __name__ == "__main__":
    main()
