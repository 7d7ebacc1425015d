#!/usr/bin/env python3
"""A new stage is its file plus its line, even one that calls another stage's code: in a scratch
copy of this checkout, heat gets v0_again (v0's loop, called from a file of its own) and matmul
nat_again (nat's triple loop, likewise), each as one file in solutions/ and its STAGE line with
a CALLS line naming the file it calls. Graded by tools/grade.py with those files as a student's
(chapters 01-heat and 02-matmul solved), both must pass, and every other stage pass or skip.
With the CALLS lines taken out, grade.py must refuse to grade, naming both files: the solutions
themselves would be graded gaming (borrowing another stage's code), which is the instructor's
stage list to mend, not a student's fault.
The two are CPU stages, so this holds without a GPU. A maintainer's check of the grader: a
grading build of two chapters, twice (minutes on 2 cores), so it is not a Meson test.

usage: scratch_stage.py [KEEP_DIR]   (KEEP_DIR: keep the scratch checkout and its reports there)
"""
import csv
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHAPTERS = ["01-heat", "02-matmul"]
# chapter -> (stage list, its new lines, the new file's name, its text)
SCRATCH = {
    "01-heat": ("heat.stages", ['STAGE(v0_again, v0_again.cpp, cpu, "v0\'s loop, called from a file of its own")',
                                "CALLS(v0_again, v0_cpu.cpp)"], "v0_again.cpp",
                "// heat v0_again: a scratch stage that runs v0's loop (its file and its line are all it takes).\n"
                '#include "heat.h"\n\n'
                "namespace {\n"
                "float* run(const HeatGrid& g, float coeff, float* a, float* b, int steps, dim3 block, cudaStream_t stream) {\n"
                "  return heat_v0.run(g, coeff, a, b, steps, block, stream);\n"
                "}\n"
                "}  // namespace\n\n"
                "const HeatCode heat_v0_again{run};\n"),
    "02-matmul": ("matmul.stages", ['STAGE(nat_again, nat_again.cpp, cpu, "nat\'s loop, called from a file of its own")',
                                    "CALLS(nat_again, nat_triple_loop.cpp)"], "nat_again.cpp",
                  "// matmul nat_again: a scratch stage that runs nat's loop (its file and its line are all it takes).\n"
                  '#include "matmul.h"\n\n'
                  'extern "C" void matmult_nat_again(int m, int n, int k, double* A, double* B, double* C) {\n'
                  "  matmult_nat(m, n, k, A, B, C);\n"
                  "}\n\n"
                  "const MatmulCode matmul_nat_again{matmult_nat_again};\n"),
}
NEW_STAGES = {"01-heat": "v0_again", "02-matmul": "nat_again"}


def copy_checkout(to: pathlib.Path) -> None:
    """The checkout's tracked files as they are in the working tree (no build folders)."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, to / name)


def set_calls(checkout: pathlib.Path, with_calls: bool) -> None:
    for chapter, (listing, lines, _, _) in SCRATCH.items():
        path = checkout / "chapters" / chapter / listing
        kept = [line for line in path.read_text().splitlines() if line not in lines]
        path.write_text("\n".join(kept + [line for line in lines if with_calls or not line.startswith("CALLS(")]) + "\n")


def grade(checkout: pathlib.Path, submission: pathlib.Path, out: pathlib.Path):
    """grade.py's run (its output also printed as it was) and its report: (chapter, stage) ->
    (status, message), or None where it wrote none."""
    done = subprocess.run([sys.executable, str(checkout / "tools" / "grade.py"), str(submission),
                           *[a for c in CHAPTERS for a in ("--chapter", c)], "--out", str(out),
                           "--build", str(checkout / "build-grading"), "--timeout", "120"], cwd=checkout,
                          capture_output=True, text=True)
    print(done.stdout + done.stderr, end="")
    if done.returncode != 0 or not (out / "report.csv").is_file():
        return done, None
    with open(out / "report.csv", newline="") as f:
        return done, {(r["chapter"], r["stage"]): (r["status"], r.get("message", "")) for r in csv.DictReader(f)}


def check_graded(done, rows) -> list:
    """Every stage passes or skips, the scratch ones pass."""
    if rows is None:
        print(f"FAIL: grade.py exited {done.returncode} without a report")
        return ["grade.py"]
    problems = []
    for (chapter, stage), (status, message) in sorted(rows.items()):
        want = ["pass"] if NEW_STAGES.get(chapter) == stage else ["pass", "skip"]
        print(("ok   " if status in want else "FAIL ") + f"{chapter} {stage}: {status} {message[:120]}")
        if status not in want:
            problems.append(f"{chapter} {stage}")
    for chapter, stage in NEW_STAGES.items():
        if (chapter, stage) not in rows:
            print(f"FAIL {chapter} {stage}: not in the report")
            problems.append(f"{chapter} {stage}")
    return problems


def check_refused(done, rows) -> list:
    """grade.py stops before grading, naming each scratch file and the file it calls."""
    said = done.stdout + done.stderr
    named = all(f"{chapter}/{SCRATCH[chapter][2]}" in said for chapter in CHAPTERS)
    refused = done.returncode != 0 and rows is None and "CALLS line missing" in said and named
    print(("ok   " if refused else "FAIL ") + f"grade.py refuses (exit {done.returncode}), naming both scratch files: "
          + (said.strip().splitlines() or [""])[-1][:300])
    return [] if refused else ["grade.py graded without the CALLS lines"]


def main(argv: list) -> int:
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    keep = pathlib.Path(argv[0]).resolve() if argv else None
    with tempfile.TemporaryDirectory(prefix="tut-scratch-stage-") as temporary:
        place = keep or pathlib.Path(temporary)
        checkout, submission = place / "checkout", place / "submission" / "exercises"
        if checkout.exists():
            shutil.rmtree(checkout)
        copy_checkout(checkout)
        for chapter, (_, _, name, text) in SCRATCH.items():
            (checkout / "solutions" / chapter / name).write_text(text)
        if submission.exists():
            shutil.rmtree(submission)
        for chapter in CHAPTERS:  # the student's: every stage of the two chapters solved, the scratch ones too
            shutil.copytree(checkout / "solutions" / chapter, submission / chapter)
        problems = []
        for with_calls, check in [(True, check_graded), (False, check_refused)]:
            set_calls(checkout, with_calls)
            print(f"== the scratch stages {'with' if with_calls else 'without'} their CALLS lines")
            problems += check(*grade(checkout, submission, place / ("report-" + ("with" if with_calls else "without"))))
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
