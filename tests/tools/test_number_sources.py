#!/usr/bin/env python3
"""tools/number_sources.py lists a lesson's measured numbers that its cited files do not hold, and
only those: on a scratch lesson with one results file, each way a number can be traced (its
paragraph, its section, a subsection's section, a generated table, a ratio, a time per step, a
product worked out) is
accepted and each way it can be wrong is listed. Bad input: one line on stderr, exit 2."""
import pathlib
import subprocess
import sys
import tempfile

from expectations import ROOT, expect, finish, refused

TOOL = ROOT / "tools" / "number_sources.py"
RESULTS = """# commit: 1234abc, NVIDIA H200
stage,seconds,gcells,fraction,steps
v4,0.0301,332.30,0.8844,5000
v5,0.0444,225.27,0.6012,5000
"""
LESSON = """# A lesson

## A run

v4 takes 0.0301 s (30.1 ms) and v5 44.4 ms, from [`results/run.csv`](results/run.csv): v4 runs
at 88.4% of the ceiling and 1.48x v5's 225.27 GCells/s.

The same file, another paragraph of the section: v5 at 60.1%, v4 at 6.02 us a step (not 6.12 us);
worked out: 2 x 0.0301 = 60.2 ms, and wrongly, 2 x 0.0301 = 61.2 ms.

- v4 at 332.3 GCells/s, then a typo: 332.9 GCells/s.

### A subsection leans on its section's files

v5 at 225.27 GCells/s.

```sh
time 999.9 s in a code block
```

<!-- table: plot.py results/run.csv -->
| stage | s |
| v9 | 777.7 s |

A generated table's rows are the file's: v9 took 777.7 s.

## Another section

Nothing cited here: 12.5 ms. The post reports 3.3x, https://example.org/post.
"""

with tempfile.TemporaryDirectory() as scratch:
    folder = pathlib.Path(scratch)
    (folder / "results").mkdir()
    (folder / "results" / "run.csv").write_text(RESULTS)
    lesson = folder / "lesson.md"
    lesson.write_text(LESSON)
    done = subprocess.run([sys.executable, str(TOOL), str(lesson)], capture_output=True, text=True)
    listed = [line.split(": ", 2)[1] for line in done.stdout.splitlines() if line.startswith(str(lesson))]
    expect(f"exit 0 ({done.returncode}: {done.stderr.strip()[:200]})", done.returncode == 0)
    expect(f"exactly the typos and the uncited figure listed ({listed})", listed == ["6.12 us", "61.2 ms", "332.9 GCells/s", "12.5 ms"])
    expect("the uncited figure's reason", "12.5 ms: no results file cited" in done.stdout)
    expect("the typo's reason names the file", "332.9 GCells/s: not in run.csv" in done.stdout)

    (folder / "notes.txt").write_text("not Markdown")
    for what, args, names in (("a file that is not Markdown", [str(folder / "notes.txt")], "not a Markdown file"),
                              ("a missing file", [str(folder / "none.md")], "none.md"),
                              ("an unknown option", ["--bogus"], "--bogus")):
        refused(TOOL, what, *args, names=names)
finish()
