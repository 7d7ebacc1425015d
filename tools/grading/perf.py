"""Performance grading, the same for every chapter: chapters/chapters.list says how each stage
list's GPU stages are timed (the chapter's own program, its arguments); the program measures its
ceiling in the same run (the device-to-device copy, or cuBLAS) and reports each stage's
fraction_of_ceiling in its --csv rows. A stage's fraction earns credit by its target in
targets.csv, linearly from none at half the target to all of it at the target."""
import csv
import io
import statistics

import chapters
from chapters import ROOT

LIMIT = 120  # seconds for each run of a chapter's program
NO_TARGET = "none"  # targets.csv: a timed stage deliberately not graded on speed


def timed(folder: str, side: str, stage: str) -> bool:
    """Whether --perf times a stage (its key, "list/name" or "name"): a GPU stage that is not one
    of its chapter's untimed ones (one GPU thread; the ceiling itself)."""
    return side == "gpu" and stage.split("/")[-1] not in chapters.read_chapters()[folder].untimed


def bench(build, box, folder, command):
    """The chapter's program, built with the submission, in the sandbox BOX: its CSV rows (none if
    it failed or ran past LIMIT seconds)."""
    program = [build / "chapters" / folder / command[0], *command[1:], "--csv"]
    table = "/tmp/table.csv"  # its stdout alone, without what it says on stderr
    done = box.run(["/bin/sh", "-c", f'"$@" > {table}', "sh", *program], ROOT, limit=LIMIT, fetch=table)
    if done.code != 0 or done.timed_out:
        return []
    return list(csv.DictReader(io.StringIO(done.fetched.decode(errors="replace"))))


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
            for r in bench(build, box, folder, run):
                name = r.get("stage", r.get("type"))
                if name in names and r.get("fraction_of_ceiling"):
                    measured.setdefault(name, []).append((float(r["fraction_of_ceiling"]), r["ceiling"]))
        for name, values in measured.items():
            found[names[name]] = (statistics.mean(v for v, _ in values), values[0][1])
    return found


def credit(fraction: float, target: float) -> float:
    return max(0.0, min(1.0, (fraction - target / 2) / (target / 2)))
