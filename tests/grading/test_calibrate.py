#!/usr/bin/env python3
"""tools/grading/calibrate.py on a made-up report of the solutions: the stages it measured get
0.9 (or --factor) times their fraction as target, a stage it did not measure keeps its target,
a target "none" stays, a new stage is added in lesson order, the comments stay, bad input is
refused with exit 2, and a report made without a GPU gives exit 77. And targets.csv itself: every GPU stage that grade.py --perf times has a target or "none", so that
a new stage cannot go ungraded on speed by being forgotten."""
import csv
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
CALIBRATE = ROOT / "tools" / "grading" / "calibrate.py"
REPORT = [  # chapter, stage, fraction ("" where the report has none)
    ("01-heat", "v2", "0.500"), ("01-heat", "v7", "0.800"), ("02-matmul", "gpu7", "0.950"),
    ("02-matmul", "nat", ""), ("02-matmul", "gpulib", "1.000"), ("04-particle-mesh", "force/gpu1", "0.100")]


sys.path.insert(0, str(ROOT / "tools"))
import chapters  # noqa: E402  (tools/ is not a package on the path by default)
from grading import perf  # noqa: E402


def calibrate(*args):
    return subprocess.run([sys.executable, str(CALIBRATE), *map(str, args)], capture_output=True, text=True)


def targets(path):
    rows = csv.DictReader(line for line in open(path) if not line.startswith("#"))
    return {(r["chapter"], r["stage"]): r for r in rows}


def untargeted(rows: dict) -> list:
    """The GPU stages grade.py --perf times (side gpu, not a chapter's untimed ones) whose row in
    targets.csv has neither a target nor "none"."""
    timed = [s for s in chapters.read_stages() if perf.timed(s.folder, s.side, s.key)]
    return [f"targets.csv: {s.folder} {s.key} is timed by grade.py --perf and has no target (a number, or none)"
            for s in timed if rows.get((s.folder, s.key), {}).get("target", "").strip() == ""]


def main() -> int:
    problems = []
    with tempfile.TemporaryDirectory() as scratch:
        scratch = pathlib.Path(scratch)
        mine = scratch / "targets.csv"
        shutil.copy(ROOT / "tools" / "grading" / "targets.csv", mine)
        before = targets(mine)
        report = scratch / "report.csv"
        with open(report, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["submission", "chapter", "stage", "status", "fraction"])
            writer.writerows(["solutions", c, s, "pass", fr] for c, s, fr in REPORT)
        done = calibrate(report, "--factor", "0.8", "--targets", mine)
        if done.returncode != 0:
            return print(f"FAIL: calibrate.py exited {done.returncode}: {done.stderr}") or 1
        after = targets(mine)
        for chapter, stage, fraction in REPORT:
            kept = not fraction or before.get((chapter, stage), {}).get("target") == perf.NO_TARGET
            want = before.get((chapter, stage), {}).get("target") if kept else f"{0.8 * float(fraction):.3f}"
            got = after.get((chapter, stage), {}).get("target")
            if got != want:
                problems.append(f"{chapter} {stage}: target {got!r}, expected {want!r}")
        for key in set(before) - {(c, s) for c, s, _ in REPORT}:
            if after.get(key) != before[key]:
                problems.append(f"{key}: changed although the report did not measure it")
        order = list(after)
        if order.index(("04-particle-mesh", "force/gpu1")) > order.index(("04-particle-mesh", "force/gpu2")):
            problems.append("force/gpu1 was not put before force/gpu2 (lesson order)")
        if not mine.read_text().startswith("# What tools/grade.py expects"):
            problems.append("the comments at the top were lost")
        for bad in ([str(scratch / "none.csv")], [str(report), "--factor", "0"], [str(mine)]):
            refused = calibrate(*bad, "--targets", mine)
            if refused.returncode != 2 or not refused.stderr.strip():
                problems.append(f"calibrate.py {' '.join(bad)}: exit {refused.returncode}, expected 2 with a message")
        without_gpu = scratch / "without-gpu.csv"
        without_gpu.write_text("submission,chapter,stage,side,status,fraction\nsolutions,01-heat,v1,gpu,skip,\n")
        skipped = calibrate(without_gpu, "--targets", mine)
        if skipped.returncode != 77:
            problems.append(f"a report made without a GPU: exit {skipped.returncode}, expected 77 (SKIP)")
    real = targets(ROOT / "tools" / "grading" / "targets.csv")
    problems += untargeted(real)
    if len(untargeted({k: v for k, v in real.items() if k != ("03-poisson", "gpu5")})) != 1:
        problems.append("the check of targets.csv does not see a timed stage without a row (poisson gpu5 left out)")
    for p in problems:
        print("FAIL:", p)
    print(f"{len(REPORT)} stages calibrated, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
