#!/usr/bin/env python3
"""tests/documented_commands.py must be able to fail: on a made-up lesson in a made-up
checkout, it must flag a command that fails, a "fails" command that succeeds or prints the
wrong message, a command that writes to exercises/ and one that changes a committed file; and it
must accept the rest."""
import pathlib
import re
import subprocess
import sys
import tempfile

from expectations import ROOT, expect, finish

sys.path.insert(0, str(ROOT / "tests"))
import documented_commands as harness  # noqa: E402

LESSON = """# A lesson

```sh
true                                  # passes
false                                 # FLAG: fails without saying so
sh -c 'echo "-> edit x"; exit 1'      # fails: "-> edit x"
true                                  # fails: FLAG, it succeeded
sh -c 'echo other; exit 1'            # fails: "-> edit y" FLAG: the wrong message
sh -c 'exit 77'                       # a GPU program without a GPU: skipped
cd exercises
echo mine > a.txt                     # FLAG: writes to the student's file
```

```sh
echo redrawn > results.png            # FLAG: over a committed picture
echo new > plots.png                  # a new file: not committed, allowed
echo again > results.png              # rewrites results.png: allowed, as its comment says
git checkout -q results.png           # (the harness restores only what it flags)
grep -q picture results.png           # the harness put the committed file back
```

Text between blocks.

```sh
pwd | grep -q 'exercises$' && exit 1 || true   # each block starts at the root again
# edit exercises/b.txt: the harness's turn, not a command
grep -q solution exercises/b.txt
echo one \\
  two | grep -q 'one two'             # a continued line is one command
```

<!-- not run: an illustration -->
```sh
false
```
"""

with tempfile.TemporaryDirectory() as scratch:
    copy = pathlib.Path(scratch)
    for tree, text in (("exercises", "skeleton"), ("solutions", "solution")):
        (copy / tree).mkdir()
        for name in ("a.txt", "b.txt"):
            (copy / tree / name).write_text(text + "\n")
    (copy / "results.png").write_text("picture\n")
    git = ["git", "-C", str(copy), "-c", "user.name=test", "-c", "user.email=none@localhost"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "made-up checkout"]):
        subprocess.run(git + step, check=True, capture_output=True)
    lesson = copy / "lesson.md"
    lesson.write_text(LESSON)
    log = []
    failures = harness.run_document(lesson, copy, harness.activated_env(copy),
                                    harness.snapshot(copy / "exercises"), log)
    text = "\n".join(log)
    print(text)
    flagged = sum(1 for line in LESSON.splitlines() if "FLAG" in line)
    expect(f"the {flagged} wrong commands are flagged, and only they", failures == flagged)
    listed = lambda pattern: bool(re.search(pattern, text))  # noqa: E731
    expect("the illustration is listed, not run", listed(r"not run  lesson.md:\d+: false  \(an illustration\)"))
    expect("a program that needs a GPU is counted as skipped", listed(r"skipped  lesson.md:\d+: sh -c 'exit 77'"))
    expect("the edit turn put the solution in", (copy / "exercises" / "b.txt").read_text() == "solution\n")

finish()
