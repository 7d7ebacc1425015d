#!/usr/bin/env python3
"""Sets the performance targets of tools/grading/targets.csv from the solutions' own speed on
this machine's GPU: each stage's target becomes FACTOR (default 0.9) times the fraction of the
ceiling that the solution reached in a grading report of the solutions made with --perf:

    python3 tools/grade.py solutions --perf --out calibration
    python3 tools/grading/calibrate.py calibration/report.csv

Stages the report has no fraction for keep their targets, and so do those whose target is
"none" (deliberately not graded on speed: cuBLAS, the ceiling itself); the comments of
targets.csv are kept as they are.

usage: calibrate.py REPORT.csv... [--factor FACTOR] [--targets FILE]

Exit 77 (nothing to do) for a report made without a GPU, whose GPU stages were all skipped.
"""
import csv
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import chapters  # noqa: E402  (tools/ is not a package on the path by default)
from grading import perf  # noqa: E402
from plotting import InputError, Parser, run  # noqa: E402  (the tools' one-line usage errors)


def measured(rows) -> dict:
    """(chapter, stage) -> the solutions' fraction of the ceiling, from the rows of grade.py --perf reports."""
    return {(r["chapter"], r["stage"]): float(r["fraction"]) for r in rows if r.get("fraction")}


def calibrate(targets_file: pathlib.Path, fractions: dict, factor: float) -> int:
    """Rewrites TARGETS_FILE; returns how many targets were set."""
    lines = targets_file.read_text().splitlines()
    comments = [line for line in lines if line.startswith("#")]
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    known = {(r["chapter"], r["stage"]) for r in rows}
    rows += [{"chapter": c, "stage": s, "target": ""} for c, s in fractions if (c, s) not in known]
    for r in rows:
        if (r["chapter"], r["stage"]) in fractions and r["target"] != perf.NO_TARGET:
            r["target"] = f"{factor * fractions[(r['chapter'], r['stage'])]:.3f}"
    lesson_order = {(s.folder, s.key): i for i, s in enumerate(chapters.read_stages())}
    rows.sort(key=lambda r: lesson_order.get((r["chapter"], r["stage"]), len(lesson_order)))
    with open(targets_file, "w", newline="") as f:
        f.write("\n".join(comments) + "\n")
        writer = csv.DictWriter(f, ["chapter", "stage", "target"], lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return len(fractions)


def main(argv) -> int:
    parser = Parser(usage=__doc__.split("usage: ")[1].splitlines()[0])
    parser.add_argument("reports", nargs="+", type=pathlib.Path, metavar="REPORT.csv")
    parser.add_argument("--factor", type=float, default=0.9)
    parser.add_argument("--targets", type=pathlib.Path, default=HERE / "targets.csv")
    args = parser.parse_args(argv)
    for path in args.reports:
        if not path.is_file():
            print(f"calibrate.py: {path}: no such report (grade.py solutions --perf writes one)", file=sys.stderr)
            return 2
    if not 0 < args.factor <= 1:
        print(f"calibrate.py: --factor must be above 0 and at most 1, got {args.factor}", file=sys.stderr)
        return 2
    rows = []
    for path in args.reports:
        try:
            with open(path, newline="") as f:
                rows += csv.DictReader(f)
        except (UnicodeDecodeError, csv.Error) as e:  # run() says the rest (a missing file) in one line
            why = "not text" if isinstance(e, UnicodeDecodeError) else e
            raise InputError(f"{path}: not a grading report's CSV ({why})") from None
    fractions = measured(rows)
    gpu_rows = [r for r in rows if r.get("side") == "gpu"]
    if not fractions and gpu_rows and all(r["status"] == "skip" for r in gpu_rows):
        print("calibrate.py: the report's GPU stages were skipped, graded where there is no GPU: nothing to "
              "calibrate from (grade the solutions with --perf on the GPU that will grade)", file=sys.stderr)
        return 77
    if not fractions:
        print("calibrate.py: the reports have no fraction of a ceiling (graded without --perf, or without a GPU?)",
              file=sys.stderr)
        return 2
    try:
        count = calibrate(args.targets, fractions, args.factor)
    except (UnicodeDecodeError, csv.Error) as e:  # run() says the rest (cannot read or write it) in one line
        why = "not text" if isinstance(e, UnicodeDecodeError) else e
        raise InputError(f"{args.targets}: not a targets CSV ({why})") from None
    print(f"{count} targets set to {args.factor} times the solutions' fractions, in {args.targets}")
    return 0


if __name__ == "__main__":
    run(main)
