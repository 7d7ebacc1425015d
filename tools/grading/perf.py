"""Performance grading, the same for every chapter: chapters/chapters.list says how each stage
list's GPU stages are timed (the chapter's own program, its arguments); the program measures its
ceiling in the same run (the device-to-device copy, or cuBLAS) and reports each stage's
fraction_of_ceiling in its --csv rows. A stage's fraction earns credit by its target in
targets.csv, linearly from none at half the target to all of it at the target."""
import csv
import io
import statistics
import subprocess

import chapters
from chapters import ROOT

LIMIT = 120  # seconds for each run of a chapter's program


def untimed(folder: str) -> tuple:
    """The GPU stages that are not timed (one GPU thread; the ceiling itself)."""
    return chapters.read_chapters()[folder].untimed


def bench(build, box, folder, command):
    """The chapter's program, built with the submission, in the sandbox BOX: its CSV rows."""
    cmd, env, limits = box.wrap([build / "chapters" / folder / command[0], *command[1:], "--csv"], ROOT, {})
    done = subprocess.run(cmd, env=env, preexec_fn=limits, capture_output=True, text=True, cwd=ROOT, timeout=LIMIT)
    if done.returncode != 0:
        return []
    return list(csv.DictReader(io.StringIO(done.stdout)))


def fractions(build, folder: str, keys: list, box) -> dict:
    """Stage key -> (its fraction of the chapter's ceiling, the ceiling's name), measured now: the
    mean over the program's rows for the stage (force has one per axis); a stage the program
    did not time is left out."""
    found = {}
    for family, command in chapters.read_chapters()[folder].timing.items():
        names = {key.split("/")[-1]: key for key in keys if key.split("/")[0] in (family, key)}
        if not names:
            continue
        one_each = "{stage}" in command
        runs = [[a.replace("{stage}", n) for a in command] for n in names] if one_each else \
            [[a.replace("{stages}", ",".join(names)) for a in command]]
        measured = {}
        for run in runs:
            try:
                rows = bench(build, box, folder, run)
            except subprocess.TimeoutExpired:
                continue
            for r in rows:
                name = r.get("stage", r.get("type"))
                if name in names and r.get("fraction_of_ceiling"):
                    measured.setdefault(name, []).append((float(r["fraction_of_ceiling"]), r["ceiling"]))
        for name, values in measured.items():
            found[names[name]] = (statistics.mean(v for v, _ in values), values[0][1])
    return found


def credit(fraction: float, target: float) -> float:
    return max(0.0, min(1.0, (fraction - target / 2) / (target / 2)))
