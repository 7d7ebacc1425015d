#!/usr/bin/env python3
"""Writes the lessons' tables that a chapter's plot script prints, from the committed results
they cite, so that a table is the run's own output and never a transcription.

A generated table follows a marker line that names the command printing it (run from the
repository's root) and, after '#', which of the tables it prints (the first by default):

    <!-- table: chapters/01-heat/plot_heat.py chapters/01-heat/results/h200_128.csv --markdown -->
    | stage | what | ... |

The command must be one of the chapters' plot scripts (chapters/NN-name/plot_*.py) with its
arguments; the table is the block of lines starting with '|' right after the marker.

usage: lesson_tables.py [--check] [DOCUMENT.md ...]
  (no option)  rewrite each marked table from its command
  --check      change nothing; list each marked table that differs from its command's output
               (exit 1), or whose command fails or prints fewer tables (exit 1)
  DOCUMENT.md  the documents to look at (default: README.md, tools/grading/README.md, the
               chapters' lessons and the slides)
"""
import pathlib
import re
import shlex
import subprocess
import sys

from plotting import Parser, run

ROOT = pathlib.Path(__file__).resolve().parents[1]
MARKER = re.compile(r"<!-- table: (.+?)(?: #(\d+))? -->")
PLOT_SCRIPT = re.compile(r"chapters/\d\d-[a-z-]+/plot_[a-z_]+\.py")


def documents() -> list:
    found = [ROOT / "README.md", ROOT / "tools" / "grading" / "README.md", *sorted(ROOT.glob("chapters/*/README.md")),
             *sorted(ROOT.glob("slides/*.md"))]
    return [p for p in found if p.is_file()]


def tables_in(text: str) -> list:
    """The blocks of consecutive lines starting with '|', in order."""
    blocks, block = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            block.append(line)
        elif block:
            blocks.append(block)
            block = []
    return blocks


class Outputs:
    """Each command's tables, run once."""

    def __init__(self):
        self.seen = {}

    def tables(self, command: str) -> list:
        if command not in self.seen:
            words = shlex.split(command)
            if not words or not PLOT_SCRIPT.fullmatch(words[0]):
                raise ValueError(f"not a chapter's plot script: {command}")
            done = subprocess.run([sys.executable, *words], cwd=ROOT, capture_output=True, text=True, timeout=120)
            if done.returncode != 0:
                raise ValueError(f"{command}: exit {done.returncode}: {(done.stderr or done.stdout).strip()[-300:]}")
            self.seen[command] = tables_in(done.stdout)
        return self.seen[command]


def regenerate(path: pathlib.Path, outputs: Outputs) -> tuple:
    """(the document with its marked tables written anew, [tables that differ from their
    command's output], [markers broken: no table, or no command output to take it from])."""
    lines, out, stale, problems = path.read_text().splitlines(keepends=True), [], [], []
    i = 0
    while i < len(lines):
        out.append(lines[i])
        marker = MARKER.fullmatch(lines[i].strip())
        i += 1
        if not marker:
            continue
        where = f"{path.relative_to(ROOT)}:{i}"
        old_end = i
        while old_end < len(lines) and lines[old_end].startswith("|"):
            old_end += 1
        if old_end == i:
            problems.append(f"{where}: no table right after the marker")
            continue
        command, nth = marker.group(1), int(marker.group(2) or 1)
        table = lines[i:old_end]  # kept as it is where the command gives no table for it
        try:
            printed = outputs.tables(command)
            if nth > len(printed):
                problems.append(f"{where}: {command} prints {len(printed)} table(s), not a #{nth}")
            else:
                table = [line + "\n" for line in printed[nth - 1]]
                if table != lines[i:old_end]:
                    stale.append(f"{where}: the table differs from what {command} prints (#{nth})")
        except (ValueError, OSError, subprocess.TimeoutExpired) as e:
            problems.append(f"{where}: {e}")
        out += table
        i = old_end
    return "".join(out), stale, problems


def main(argv) -> int:
    parser = Parser(doc=__doc__, usage=__doc__.split("usage: ")[1].splitlines()[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("documents", nargs="*", type=pathlib.Path)
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.documents] or documents()
    for p in paths:
        if not p.is_file() or ROOT not in p.parents:
            parser.error(f"{p}: not a document of this repository")
    outputs, stale, broken, marked = Outputs(), [], [], 0
    for path in paths:
        text = path.read_text()
        marked += len(MARKER.findall(text))
        new, differ, problems = regenerate(path, outputs)
        stale += differ
        broken += problems
        if not args.check and new != text:
            path.write_text(new)
    for p in broken + (stale if args.check else []):
        print(p)
    print(f"{marked} generated table(s); " + (f"{len(stale)} differ from their commands" if args.check
                                               else f"{len(stale)} rewritten") + f", {len(broken)} broken")
    return 1 if broken or (args.check and stale) else 0


if __name__ == "__main__":
    run(main)
