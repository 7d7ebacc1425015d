#!/usr/bin/env python3
"""tools/make_exercises.py keeps a student's work: in a copy of the repository's solutions/ and
record, with exercises/ generated there (so that a student's solved exercises/ does not matter
here), an edited exercise passes the staleness check, is not overwritten
without --force, and a solution changed without regenerating fails the check; the skeletons'
headers point at the exercises build and name every test of their stages, idea checks too."""
import pathlib
import shutil
import subprocess
import sys
import tempfile

from expectations import ROOT, expect, finish

sys.path.insert(0, str(ROOT / "tools"))
import chapters  # noqa: E402  (tools/ is not a package on the path by default)

EXERCISE = "exercises/01-heat/v0_cpu.cpp"


def stage_tests() -> dict:
    """'NN-chapter/file' -> the Meson tests of the stages it holds, each with its idea check."""
    named = {}
    for s in chapters.read_stages():
        named.setdefault(s.path, []).extend([s.test] + ([s.test + "-idea"] if s.has_idea else []))
    return named

with tempfile.TemporaryDirectory() as scratch:
    root = pathlib.Path(scratch)
    shutil.copytree(ROOT / "solutions", root / "solutions")
    (root / "tools").mkdir()
    for name in ("make_exercises.py", "chapters.py", "exercise_skeletons.sha256"):
        shutil.copy2(ROOT / "tools" / name, root / "tools" / name)
    for listed in [ROOT / "chapters" / "chapters.list", *(ROOT / "chapters").glob("*/*.stages")]:  # what chapters.py reads
        (root / listed.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(listed, root / listed.relative_to(ROOT))

    def make(*args):
        return subprocess.run([sys.executable, str(root / "tools" / "make_exercises.py"), *args],
                              capture_output=True, text=True)

    expect("exercises/ is generated from solutions/ where there is none", make().returncode == 0)
    exercise = root / EXERCISE
    skeleton = exercise.read_text()
    expect("the generated exercises/ is current", make("--check", "--pristine").returncode == 0)

    exercise.write_text(skeleton + "// the student's work\n")
    expect("an edited exercise still passes the staleness check", make("--check").returncode == 0)
    expect("--pristine names the edited exercise",
           make("--check", "--pristine").returncode == 1 and EXERCISE in make("--check", "--pristine").stderr)
    run = make()
    expect("regenerating refuses to overwrite the edited exercise, and says so",
           run.returncode == 1 and EXERCISE in run.stderr and exercise.read_text().endswith("// the student's work\n"))
    expect("--force overwrites it with the skeleton", make("--force").returncode == 0 and exercise.read_text() == skeleton)

    headers = [line for path in sorted((root / "exercises").rglob("*.c*")) for line in path.read_text().splitlines()
               if line.startswith(("//   run:", "//   test:"))]
    expect("every skeleton's run: and test: lines name the exercises build (build-ex), not the solutions'",
           headers and all("build-ex" in line and " build/" not in line and "-C build " not in line for line in headers))

    # The test: line is the student's whole check of a stage: the tests of every stage in the
    # file, and the idea check of each that has one (a racy OpenMP stage passes its numbers).
    for path, named in stage_tests().items():
        lines = [line for line in (root / "exercises" / path).read_text().splitlines() if line.startswith("//   test:")]
        expect(f"exercises/{path}'s test: line runs {' '.join(named)}",
               [[w for w in line.split("-C build-ex ")[-1].split() if not w.startswith("--")] for line in lines] == [named])

    solution = root / "solutions" / "01-heat" / "v0_cpu.cpp"
    solution.write_text(solution.read_text() + "// a maintainer's change\n")
    run = make("--check")
    expect("a solution changed without regenerating fails the check", run.returncode == 1 and "01-heat/v0_cpu.cpp" in run.stderr)
    expect("regenerating then passes it", make().returncode == 0 and make("--check", "--pristine").returncode == 0)
    expect("the regenerated skeleton carries the change", exercise.read_text().endswith("// a maintainer's change\n"))

    out = root / "generated"
    run = make("--out", str(out), str(solution))
    expect("--out writes the skeleton of a solution file",
           run.returncode == 0 and (out / "v0_cpu.cpp").read_text() == exercise.read_text())

finish()
