"""Performance grading: each chapter's own program times its GPU stages against a ceiling it
measures in the same run (the device-to-device copy for the memory-bound chapters, cuBLAS for
matmul); a stage's fraction of that ceiling earns credit by its target in targets.csv, linearly
from none at half the target to all of it at the target."""
import csv
import io
import subprocess
import statistics

from .stages import ROOT


def heat(build, names, box):
    rows = bench(build, box, "01-heat/heat3d", "--size", "256", "--steps", "500", "--repeats", "3", "--stage", ",".join(names))
    return {r["stage"]: float(r["pct_copy"]) / 100 for r in rows if r["stage"] in names and r["pct_copy"]}


def matmul(build, names, box):
    rows = bench(build, box, "02-matmul/matmul_bench", "--min-n", "2048", "--max-n", "2048", "--types",
                 ",".join(dict.fromkeys([*names, "gpulib"])))
    square = [r for r in rows if r["m"] == r["n"] == r["k"] == "2048" and r["device_gflops"]]
    cublas = next((float(r["device_gflops"]) for r in square if r["type"] == "gpulib"), 0.0)
    return {r["type"]: float(r["device_gflops"]) / cublas for r in square if r["type"] in names and cublas}


def poisson(build, names, box):
    return {name: float(r["pct_copy"]) / 100 for name in names
            for r in bench(build, box, "03-poisson/jacobi", name, "2048", "1000") if r["pct_copy"]}


def particle_mesh(build, names, box):
    fractions = {}
    for program, family, size in (("part2data", "part2data", ["--particles", "16777216"]),
                                  ("force", "force", ["--size", "256"])):
        mine = [n.split("/")[1] for n in names if n.startswith(family + "/")]
        if mine:
            rows = bench(build, box, f"04-particle-mesh/{program}", *size, "--stage", ",".join(mine), "--cpu-repeats", "1")
            for stage in mine:  # force has a row per axis: their mean
                pct = [float(r["pct_copy"]) for r in rows if r["stage"] == stage and r["pct_copy"]]
                if pct:
                    fractions[f"{family}/{stage}"] = statistics.mean(pct) / 100
    return fractions


RUNS = {"01-heat": heat, "02-matmul": matmul, "03-poisson": poisson, "04-particle-mesh": particle_mesh}
CEILING = {"01-heat": "copy", "02-matmul": "cuBLAS", "03-poisson": "copy", "04-particle-mesh": "copy"}
# gpu1 of matmul and poisson run one GPU thread: minutes at the sizes above, and no lesson in
# their speed; gpulib is cuBLAS, the ceiling itself
UNTIMED = {"02-matmul": ("gpu1", "gpulib"), "03-poisson": ("gpu1",)}
LIMIT = 120  # seconds for each run of a chapter's program


def bench(build, box, program, *args):
    """The chapter's PROGRAM, built with the submission, in the sandbox BOX: its CSV rows."""
    cmd, env, limits = box.wrap([build / "chapters" / program, *args, "--csv"], ROOT, {})
    done = subprocess.run(cmd, env=env, preexec_fn=limits, capture_output=True, text=True, cwd=ROOT, timeout=LIMIT)
    if done.returncode != 0:
        return []
    return list(csv.DictReader(io.StringIO(done.stdout)))


def fractions(build, folder: str, names: list, box) -> dict:
    """Stage key -> its fraction of the chapter's ceiling, measured now ({} if it has none)."""
    run = RUNS.get(folder)
    try:
        return run(build, names, box) if run and names else {}
    except (subprocess.TimeoutExpired, KeyError, ValueError, ZeroDivisionError):
        return {}


def credit(fraction: float, target: float) -> float:
    return max(0.0, min(1.0, (fraction - target / 2) / (target / 2)))
