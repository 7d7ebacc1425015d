#!/usr/bin/env python3
"""Generate the exercise skeletons from solutions/: each stage file is copied with its marked
lines replaced by a TODO that states the task.

In a solution file, one line marks what the student writes:
    // EXERCISE: what the student must write       (more lines of the task may follow as
    //   ...continued                               comment lines that start with "//   ")
    ...the solution's lines...                      (they end at the first blank line, or at the
                                                    first line indented less than the marker;
                                                    preprocessor lines such as #pragma don't count)
    // SKELETON: a line the skeleton gets instead   (optional, among the solution's lines)

exercises/ is the students' to edit, so this script never takes it as its reference. It keeps
a record, tools/exercise_skeletons.sha256, of the skeleton it last wrote for each file.

Usage (the maintainer's commands; a student never needs them):
  make_exercises.py            write exercises/ and the record; a file that differs from the
                               skeleton recorded for it (someone's work) is not overwritten
  make_exercises.py --force    overwrite those too
  make_exercises.py --check    exit 1 if the record is not what solutions/ generates now, that
                               is, if solutions/ changed and exercises/ was not regenerated
  make_exercises.py --check --pristine
                               also exit 1 if an exercises/ file differs from its skeleton (for
                               the course's own repository, where nobody solves them)
  make_exercises.py --out DIR [--prefix P] SOLUTION...
                               write the skeletons of these solution files into DIR, each named
                               P + its name (the build compiles them to check that pristine
                               skeletons fail their tests)
"""
import argparse
import hashlib
import pathlib
import sys

import chapters  # tools/chapters.py: the stage lists, read as the build reads them

ROOT = pathlib.Path(__file__).resolve().parent.parent
RECORD = ROOT / "tools" / "exercise_skeletons.sha256"
MAINTAINER_COMMAND = "python3 tools/make_exercises.py"


def exercises_build(line: str) -> str:
    """A header's run: or test: line, pointed at the exercises build of the student's loop
    (README: meson setup build-ex -Dkernels=exercises): in build/, it would run the solution."""
    return line.replace(" build/", " build-ex/").replace("-C build ", "-C build-ex ")


def skeleton(text: str, origin: str) -> str:
    out = [f"// Exercise skeleton generated from {origin} by tools/make_exercises.py:",
           "// write the lines each TODO asks for, then build and run this stage's tests."]
    block_indent = None  # the marker's indentation while inside an exercise
    in_task = False
    for line in text.splitlines():
        body = line.strip()
        indent = len(line) - len(line.lstrip())
        if block_indent is not None and (not body or (indent < block_indent and not body.startswith("#"))):
            block_indent = None  # the solution's lines have ended
        if body.startswith("// EXERCISE:"):
            if block_indent is not None:
                raise SystemExit(f"{origin}: an EXERCISE inside another one: {line.strip()}")
            block_indent, in_task = indent, True
            out.append(f"{line[:indent]}// TODO(exercise): {body[len('// EXERCISE:'):].strip()}")
        elif block_indent is None and body.startswith(("//   run:", "//   test:")):
            out.append(exercises_build(line))
        elif block_indent is None:
            out.append(line)
        elif in_task and body.startswith("//   "):
            out.append(f"{line[:indent]}//   {body[5:]}")
        else:
            in_task = False
            if body.startswith("// SKELETON:"):
                out.append(line[:indent] + body[len("// SKELETON:"):].strip())
    return "\n".join(out) + "\n"


def skeleton_of(source: pathlib.Path) -> str:
    try:  # read first: a missing file is said as such, not as being outside ROOT
        text = source.read_text()
    except UnicodeDecodeError:
        raise ValueError(f"{source}: not a text file (a binary file?)") from None
    if not source.resolve().is_relative_to(ROOT):
        raise ValueError(f"{source}: not a file of this repository ({ROOT})")
    return skeleton(text, source.resolve().relative_to(ROOT).as_posix())


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def expected_skeletons():
    """{"01-heat/v1_naive.cu": skeleton text} for every stage file of the chapters' stage lists."""
    return {path: skeleton_of(ROOT / "solutions" / path) for path in sorted(chapters.stage_files(chapters.read_stages()))}


def read_record():
    if not RECORD.exists():
        return {}
    lines = [line.split() for line in RECORD.read_text().splitlines() if line and not line.startswith("#")]
    return {name: sha for sha, name in lines}


def write_record(skeletons):
    lines = ["# The skeleton tools/make_exercises.py last wrote for each file of exercises/ (sha256).",
             f"# Written by `{MAINTAINER_COMMAND}`; the test exercises-current compares it with solutions/."]
    lines += [f"{digest(text)}  {name}" for name, text in sorted(skeletons.items())]
    RECORD.write_text("\n".join(lines) + "\n")


def write_exercises(force: bool) -> int:
    skeletons, record = expected_skeletons(), read_record()
    kept = []
    for name, text in skeletons.items():
        target = ROOT / "exercises" / name
        if target.exists():
            current = target.read_text()
            if current == text:
                continue
            if digest(current) != record.get(name) and not force:
                kept.append(f"exercises/{name}")  # not the skeleton it was given: someone's work
                continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    write_record(skeletons)
    if kept:
        print("make_exercises: not overwritten, because they differ from the skeletons written before "
              "(someone's work?): " + ", ".join(kept) + ". Rerun with --force to replace them.", file=sys.stderr)
        return 1
    print(f"make_exercises: exercises/ holds the skeletons of {len(skeletons)} stage files")
    return 0


def check(pristine: bool) -> int:
    skeletons, record = expected_skeletons(), read_record()
    stale = sorted(set(skeletons) ^ set(record) | {n for n in skeletons if record.get(n) != digest(skeletons[n])})
    missing = [n for n in skeletons if not (ROOT / "exercises" / n).exists()]
    edited = [n for n in skeletons if n not in missing and (ROOT / "exercises" / n).read_text() != skeletons[n]]
    problems = []
    if stale:
        problems.append("solutions/ changed since exercises/ was generated (" + ", ".join(stale) +
                        f"): the maintainer must run `{MAINTAINER_COMMAND}` and commit exercises/ and the record")
    if missing:
        problems.append("missing: " + ", ".join(f"exercises/{n}" for n in missing))
    if pristine and edited:
        problems.append("not their generated skeletons: " + ", ".join(f"exercises/{n}" for n in edited))
    for problem in problems:
        print("make_exercises --check: " + problem, file=sys.stderr)
    if problems:
        return 1
    print(f"exercises/ is current with solutions/ ({len(skeletons)} stage files; "
          f"{len(edited)} of them edited since, which is a student's work)")
    return 0


def write_out(out_dir: pathlib.Path, prefix: str, sources) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    for source in map(pathlib.Path, sources):
        (out_dir / (prefix + source.name)).write_text(skeleton_of(source))
    return 0


class Parser(argparse.ArgumentParser):
    """Usage errors in one line, exit 2. (tools/plotting.py's Parser does this for the other tools;
    this script stands alone, as tests/tools/test_make_exercises.py runs a copy of it by itself.)"""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv) -> int:
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--pristine", action="store_true")
    parser.add_argument("--out", metavar="DIR")
    parser.add_argument("--prefix")
    parser.add_argument("solutions", nargs="*", metavar="SOLUTION")
    args = parser.parse_args(argv)
    # an option that does not apply is refused, not ignored: without --out, a stray SOLUTION
    # would regenerate all of exercises/
    if args.out is not None:
        if not args.out.strip():  # an unset variable: Path('') is the current folder
            parser.error("--out is empty")
        if not args.solutions:
            parser.error("--out DIR needs the SOLUTION files to write the skeletons of")
        if args.check or args.force or args.pristine:
            parser.error("--out takes no --check, --force or --pristine")
    elif args.solutions:
        parser.error(f"{args.solutions[0]}: SOLUTION files go with --out DIR only")
    elif args.prefix is not None:
        parser.error("--prefix goes with --out DIR only")
    elif args.pristine and not args.check:
        parser.error("--pristine goes with --check only")
    elif args.check and args.force:
        parser.error("--check takes no --force")
    try:
        if args.out is not None:
            return write_out(pathlib.Path(args.out), args.prefix or "", args.solutions)
        if args.check:
            return check(args.pristine)
        return write_exercises(args.force)
    except (OSError, ValueError) as e:  # a file it cannot read or write: one line, not a traceback
        message = f"{e.filename}: {e.strerror}" if isinstance(e, OSError) and e.filename else str(e)
        print(f"{parser.prog}: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
