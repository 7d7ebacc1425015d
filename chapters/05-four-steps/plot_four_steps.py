#!/usr/bin/env python3
"""Plot and tables for chapter 05-four-steps, from chapters/05-four-steps/bench_four_steps.sh's CSV and
chapters/05-four-steps/profile_four_steps.sh's profile.

Usage: plot_four_steps.py PREFIX [--markdown] [--out DIR]
  PREFIX_four_steps.csv      -> DIR/NAME_four_steps.png cell updates per second, CPU and GPU, step by step
                                                      (and OpenACC, where the run had its stages);
                             with --markdown, a run of the GPU stages alone is a table of each stage
                             and variant against the copy ceiling and the stage before the last
  PREFIX_four_steps_ncu.csv  (if there) the profile table, with --markdown
  PREFIX_four_steps_mpi.csv and PREFIX_four_steps_openmp.csv (if there; alone for a CPU machine)
                             the MPI stage against OpenMP alone, with --markdown
  --markdown                 print the lesson's tables instead of plotting
  --out DIR                  where the pictures go (default plots/), NAME being PREFIX's last part;
                             --out chapters/NN-.../results redraws the committed ones
"""
import functools
import os
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))  # plotting.py, chapters.py

import chapters  # noqa: E402
from plotting import busiest, load, pictures, prefix_parser, pyplot, read_lines, run, save  # noqa: E402

SEED = {  # the ONERA slides' table: seconds for 2001^2 cells x 100 steps (Xeon E5-1650v3, 6 cores; K20Xm)
    "ref": ("4785", "-"), "0": ("677", "278"), "1": ("497", "70"), "2": ("364", "40"), "3": ("199", "33"),
    "4": ("161 (tiling), 135 (+ alignment)", "32")}
SEED_OPENACC = {"0": "320", "1": "141", "2": "114", "3": "74", "4": "73 (40 with -O0)"}  # the same table, PGI
SIDES = (("cpu", "CPU (OpenMP)", "tab:blue"), ("acc", "OpenACC", "tab:orange"), ("gpu", "CUDA", "tab:green"))
STEP_NAMES = ["adaptation", "reduce remote accesses", "merge kernels", "factor computations", "align data / tile (CPU)"]
UNITS = {"sm__throughput.avg.pct_of_peak_sustained_elapsed": "SM",
         "dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM",
         "lts__throughput.avg.pct_of_peak_sustained_elapsed": "L2",
         "l1tex__throughput.avg.pct_of_peak_sustained_elapsed": "L1"}


def by_stage(rows):
    return {r["stage"]: r for r in rows}


@functools.cache  # the tables ask again for every step and side: the files are read once
def reference():
    """The one-core stage the others are compared with (ref), as chapters.list names it."""
    return chapters.show("05-four-steps", "reference")[0]


@functools.cache
def steps_of(side):
    """A side's stages, one per step of the guideline, in lesson order (cpu0 .. cpu4, ...)."""
    return [s.name for s in chapters.read_stages(["05-four-steps"]) if s.side == side and s.name != reference()]


def plot(rows, out):
    plt = pyplot()
    stages = by_stage(rows)
    fig, ax = plt.subplots(figsize=(8, 4.2))
    sides = [s for s in SIDES if steps_of(s[0])[0] in stages]  # the OpenACC stages where the run had them
    width = 0.8 / len(sides)
    for k, (side, label, color) in enumerate(sides):
        shift = (k - (len(sides) - 1) / 2) * width
        xs, ys = [], []
        names = steps_of(side)[:len(STEP_NAMES)]
        for step, name in enumerate(names):
            if name in stages:
                xs.append(step + shift)
                ys.append(float(stages[name]["mcups"]))
        ax.bar(xs, ys, width, color=color, label=f"{label} ({names[0]} .. {names[-1]})")
        for x, y in zip(xs, ys):
            ax.text(x, y * 1.08, f"{y:.0f}", ha="center", fontsize=7)
    if reference() in stages:
        ref = float(stages[reference()]["mcups"])
        ax.axhline(ref, color="grey", linestyle="--", linewidth=0.8)
        ax.text(4.5, ref * 1.12, f"{reference()}, one core: {ref:.1f}", fontsize=8, ha="right")
    ax.set_yscale("log")
    ax.set_ylim(top=ax.get_ylim()[1] * 4)  # room for the legend above the bars
    ax.set_xticks(range(5))
    ax.set_xticklabels([f"step {i}\n{name}" for i, name in enumerate(STEP_NAMES)], fontsize=7)
    ax.set_ylabel("million cell updates per second")
    device = rows[0]["device"].split(" (")[0]
    ax.set_title(f"Yee's vortex, {rows[0]['problem'].split(',')[0]}: 16 CPU cores and the {device}", fontsize=10)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    save(fig, out)


def results_table(rows):
    stages = by_stage(rows)
    print("| step | CPU s / 100 steps | CPU Mcups | CPU vs ref | GPU s / 100 steps | GPU Mcups | GPU vs ref |"
          " seed CPU (6 cores) s | seed K20Xm s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    ref = stages.get(reference())
    if ref:
        print(f"| {reference()} (1 core) | {float(ref['s_per_100_steps']):.1f} | {float(ref['mcups']):.1f} | 1 | | | |"
              f" {SEED['ref'][0]} | {SEED['ref'][1]} |")
    for step in range(len(STEP_NAMES)):
        cells = []
        for side in ("cpu", "gpu"):
            row = stages.get(steps_of(side)[step])
            cells += [f"{float(row['s_per_100_steps']):.3g}", f"{float(row['mcups']):.0f}",
                      f"{float(row['speedup_ref']):.1f}"] if row else ["-", "-", "-"]
        print(f"| {step} {STEP_NAMES[step]} | " + " | ".join(cells) + f" | {SEED[str(step)][0]} | {SEED[str(step)][1]} |")


def three_columns_table(rows):
    """The slides' three columns, CPU, OpenACC and CUDA, from one run that had all three."""
    stages = by_stage(rows)
    ref = stages[reference()]
    print("| step | CPU s / 100 steps | OpenACC s / 100 steps | CUDA s / 100 steps | CPU Mcups | OpenACC Mcups |"
          " CUDA Mcups | CPU vs ref | OpenACC vs ref | CUDA vs ref | OpenACC vs the step before |"
          " slides' CPU s | slides' OpenACC s | slides' CUDA s |")
    print("| --- |" + " ---: |" * 13)
    print(f"| {reference()} (1 core) | {float(ref['s_per_100_steps']):.1f} | | | {float(ref['mcups']):.1f} | | | 1 | | | |"
          f" {SEED['ref'][0]} | | |")
    for step in range(len(STEP_NAMES)):
        row = {side: stages[steps_of(side)[step]] for side, _, _ in SIDES}
        seconds = " | ".join(f"{float(row[side]['s_per_100_steps']):.3g}" for side, _, _ in SIDES)
        rates = " | ".join(f"{float(row[side]['mcups']):.0f}" for side, _, _ in SIDES)
        speedups = " | ".join(f"{float(row[side]['speedup_ref']):.1f}" for side, _, _ in SIDES)
        gain = (f"{float(stages[steps_of('acc')[step - 1]]['time_s']) / float(row['acc']['time_s']):.2f}x" if step else "")
        print(f"| {step} {STEP_NAMES[step]} | {seconds} | {rates} | {speedups} | {gain} |"
              f" {SEED[str(step)][0]} | {SEED_OPENACC[str(step)]} | {SEED[str(step)][1]} |")


def gpu_table(rows):
    """A run of the GPU stages alone (vortex --stage gpu0,..,gpu5 --variants): each stage and each
    variant against the copy ceiling of the same run and against the step before the last."""
    stages = by_stage(rows)
    before = steps_of("gpu")[-2]  # gpu4, before the fused stage
    print(f"| stage | s / 100 steps | Mcups | of the copy at 256 B / cell update | vs {before} |")
    print("| --- | ---: | ---: | ---: | ---: |")
    base = float(stages[before]["time_s"])
    for row in rows:
        print(f"| {row['stage']} | {float(row['s_per_100_steps']):.4f} | {float(row['mcups']):.0f} |"
              f" {100 * float(row['fraction_of_ceiling']):.1f}% | {base / float(row['time_s']):.2f}x |")


def mpi_table(prefix):
    """The MPI stage on this machine's cores split among processes, against OpenMP alone (the last
    CPU stage), from chapters/05-four-steps/bench_four_steps_mpi.sh."""
    openmp, runs = load(prefix + "_four_steps_openmp.csv"), load(prefix + "_four_steps_mpi.csv")
    base, cores = float(openmp[0]["s_per_100_steps"]), int(runs[0]["processes"]) * int(runs[0]["threads"])
    print("| run | processes x threads | s / 100 steps | Mcups | vs OpenMP alone |")
    print("| --- | --- | ---: | ---: | ---: |")
    for row, how in zip(openmp, ("threads free", "threads bound to cores")):
        seconds = float(row["s_per_100_steps"])
        print(f"| {row['stage']} (OpenMP alone, {how}) | 1 x {cores} | {seconds:.2f} | {float(row['mcups']):.1f} | {base / seconds:.2f} |")
    for row in runs:
        seconds = float(row["s_per_100_steps"])
        print(f"| {row['stage']} (OpenMP + MPI) | {row['processes']} x {row['threads']} | {seconds:.2f} | {float(row['mcups']):.1f} |"
              f" {base / seconds:.2f} |")


def profile_table(path, rows):
    """One line per GPU stage: its kernels' time, DRAM bytes and FP64 flops per cell update over one
    time step, and the kernel that takes the most of it (its launches together)."""
    cells = int(rows[0]["problem"].split(" x ")[0]) * int(rows[0]["problem"].split(" x ")[1].split()[0])
    kernels = {}
    for line_name, (labels, metrics) in ncu_profiles_by_kernel(path).items():
        kernels.setdefault(line_name[0], []).append((line_name[1], metrics))
    print("| stage | kernels per step | time per step (ms) | DRAM B / cell update | FP64 flop / cell update |"
          " flop / DRAM byte | kernel with the most time: share, registers, warps active, limiter |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for stage, ks in kernels.items():
        total = lambda key, ms=ks: sum(m.get(key, 0) for _, m in ms)
        time = total("gpu__time_duration.sum")
        dram = total("dram__bytes_read.sum") + total("dram__bytes_write.sum")
        flops = (total("sm__sass_thread_inst_executed_op_dadd_pred_on.sum") + total("sm__sass_thread_inst_executed_op_dmul_pred_on.sum")
                 + 2 * total("sm__sass_thread_inst_executed_op_dfma_pred_on.sum"))
        by_name = {}  # a kernel's launches over the three Runge-Kutta stages together
        for name, m in ks:
            by_name.setdefault(name.split(" ", 1)[1], []).append(m)
        name, launches = max(by_name.items(), key=lambda item: sum(m["gpu__time_duration.sum"] for m in item[1]))
        share = sum(m["gpu__time_duration.sum"] for m in launches) / time
        first = launches[0]
        print(f"| {stage} | {len(ks)} | {time / 1e6:.2f} | {dram / cells:.0f} | {flops / cells:.0f} | {flops / dram:.2f} |"
              f" {name} ({len(launches)}x): {100 * share:.0f}%, {first['launch__registers_per_thread']:.0f} registers,"
              f" {first['sm__warps_active.avg.pct_of_peak_sustained_active']:.0f}% warps active, {busiest(first, UNITS)} |")


def kernel_label(name):
    """A CUDA kernel's own name; an OpenACC region, which GCC names after the function that holds
    it, by its place: pass N (acc_for_each_cell's body from the Nth lambda of the stage's run, in
    the order of the passes), or the time step's region N."""
    if "acc_for_each_cell" in name:  # "... [lambda(int, int) (instance N)] ..." as Nsight demangles it
        return "pass " + re.search(r"\(instance (\d+)\)", name).group(1)
    if "acc_time_step" in name:
        region = int(re.search(r"_omp_fn.(\d+)", name).group(1)) + 1
        return f"time step region {region}"
    return name.split("(")[0].split("::")[-1]


def ncu_profiles_by_kernel(path):
    """{(stage, kernel #n name): (labels, metrics)}: every kernel of a stage's profiled step."""
    import csv
    profiles, stage, header = {}, None, None
    for line in read_lines(path):
        if line.startswith("# stage "):
            stage = line.split()[2].rstrip(",")
        elif line.startswith('"ID"'):
            header = next(csv.reader([line]))
        elif line.startswith('"') and stage:
            row = dict(zip(header, next(csv.reader([line]))))
            key = (stage, f"{row['ID']} {kernel_label(row['Kernel Name'])}")
            profiles.setdefault(key, ({}, {}))[1][row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    return profiles


def main(argv):
    parser = prefix_parser(__doc__)
    args = parser.parse_args(argv)
    prefix, markdown = args.prefix, args.markdown
    if markdown and not os.path.exists(prefix + "_four_steps.csv") and os.path.exists(prefix + "_four_steps_mpi.csv"):
        mpi_table(prefix)  # a CPU machine's run of bench_four_steps_mpi.sh alone
        return 0
    rows = load(prefix + "_four_steps.csv")
    if markdown:
        if any(r["stage"] in steps_of("acc") for r in rows):
            three_columns_table(rows)
        elif not any(r["stage"] in steps_of("cpu") for r in rows):
            gpu_table(rows)
        else:
            results_table(rows)
        if os.path.exists(prefix + "_four_steps_ncu.csv"):
            print()
            profile_table(prefix + "_four_steps_ncu.csv", rows)
        if os.path.exists(prefix + "_four_steps_mpi.csv"):
            print()
            mpi_table(prefix)
    else:
        plot(rows, pictures(args) + "_four_steps.png")
    return 0


if __name__ == "__main__":
    run(main)
