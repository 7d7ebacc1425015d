#!/usr/bin/env python3
"""Generate exercises/ from solutions/: each stage file is copied with its marked lines
replaced by a TODO that states the task.

In a solution file:
    // EXERCISE: what the student must write       (more lines of the task may follow as
    //   ...continued                               comment lines that start with "//   ")
    ...the solution's lines...
    // SKELETON: a line the skeleton gets instead   (optional, any number)
    // END EXERCISE

Usage: make_exercises.py            write exercises/
       make_exercises.py --check    exit 1 if exercises/ is not what solutions/ generates
"""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = ("*.cu", "*.cpp", "*.h", "*.cuh")


def skeleton(text: str, origin: str) -> str:
    out = [f"// Exercise skeleton generated from {origin} by tools/make_exercises.py:",
           "// write the lines each TODO asks for, then build and run this stage's tests."]
    in_block = in_task = False
    for number, line in enumerate(text.splitlines(), 1):
        body = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        if body.startswith("// EXERCISE:"):
            if in_block:
                raise SystemExit(f"{origin}:{number}: EXERCISE inside an open EXERCISE")
            in_block = in_task = True
            out.append(f"{indent}// TODO(exercise): {body[len('// EXERCISE:'):].strip()}")
        elif in_task and body.startswith("//   "):
            out.append(f"{indent}//   {body[5:]}")
        elif body == "// END EXERCISE":
            if not in_block:
                raise SystemExit(f"{origin}:{number}: END EXERCISE without EXERCISE")
            in_block = in_task = False
        elif in_block:
            in_task = False
            if body.startswith("// SKELETON:"):
                out.append(indent + body[len("// SKELETON:"):].strip())
        else:
            out.append(line)
    if in_block:
        raise SystemExit(f"{origin}: EXERCISE never closed by END EXERCISE")
    return "\n".join(out) + "\n"


def expected_exercises():
    for chapter in sorted((ROOT / "solutions").iterdir()):
        for pattern in SOURCES:
            for source in sorted(chapter.glob(pattern)):
                origin = source.relative_to(ROOT).as_posix()
                target = ROOT / "exercises" / chapter.name / source.name
                yield target, skeleton(source.read_text(), origin)


def main() -> int:
    check = "--check" in sys.argv[1:]
    stale = []
    for target, text in expected_exercises():
        if check:
            if not target.exists() or target.read_text() != text:
                stale.append(target.relative_to(ROOT).as_posix())
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    if stale:
        print("exercises/ is stale: " + ", ".join(stale) +
              "; run python3 tools/make_exercises.py and commit the result", file=sys.stderr)
        return 1
    if check:
        print("exercises/ is current with solutions/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
