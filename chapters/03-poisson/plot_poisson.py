#!/usr/bin/env python3
"""Plots and tables for chapter 03-poisson, from chapters/03-poisson/bench_poisson.sh's CSVs.

Usage: plot_poisson.py PREFIX [--markdown] [--out DIR]
  PREFIX_sizes.csv    -> DIR/NAME_sizes.png lattice updates per second against N, per stage
  PREFIX_depths.csv   -> DIR/NAME_depths.png gpu4 and gpu5 against the depth (--depth), per N
  PREFIX_scaling.csv  -> DIR/NAME_scaling.png multi and nccl on 1, 2, 4 GPUs: speed-up and efficiency
                                              (if the run had more than one GPU)
  PREFIX_radiator.pgm -> DIR/NAME_radiator.png the solution, if the PGM is there
  --markdown          print the tables of the lesson instead
  --out DIR           where the pictures go (default plots/), NAME being PREFIX's last part;
                      --out chapters/NN-.../results redraws the committed ones
"""
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))  # plotting.py, chapters.py

from plotting import copy_gbps, load, log_axes, pyplot, run_prefix_tool, save  # noqa: E402


def plot_sizes(rows, out):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for stage in dict.fromkeys(r["stage"] for r in rows):
        pts = [(int(r["N"]), float(r["gupdates_per_s"])) for r in rows if r["stage"] == stage]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, label=stage)
    gpu = [r for r in rows if r["gpus"] == "1"]
    ceiling = max(copy_gbps(r) for r in gpu) / 24
    ax.axhline(ceiling, color="grey", linestyle="--", linewidth=0.8)
    ax.text(256, ceiling * 1.08, f"copy ceiling at 24 B/update: {ceiling:.0f} Gupdates/s", fontsize=8)
    log_axes(ax, "N (interior points per side)", "Gupdates/s",
             f"Jacobi, 1000 iterations (GPU), 100 (CPU), 10 (one GPU thread), on {rows[-1]['device'].split(' (')[0]}")
    save(fig, out)


def plot_depths(rows, out):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for stage, N in dict.fromkeys((r["stage"], r["N"]) for r in rows):
        pts = [(int(r["depth"]), float(r["gupdates_per_s"])) for r in rows if r["stage"] == stage and r["N"] == N]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3,
                linestyle="-" if stage == "gpu4" else "--", label=f"{stage}, N = {N}")
    ax.set_xscale("log", base=2)
    ax.set_xticks([2, 4, 8, 16], ["2", "4", "8", "16"])
    ax.set_xlabel("depth (--depth): gpu4's iterations per pass, gpu5's between trades")
    ax.set_ylabel("Gupdates/s")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    ax.set_title(f"gpu4 and gpu5 by depth, 1000 iterations, on {rows[-1]['device'].split(' (')[0]}", fontsize=10)
    save(fig, out)


def depth_table(rows):
    """Gupdates/s, a row per depth, a column per stage and N."""
    columns = list(dict.fromkeys((r["stage"], r["N"]) for r in rows))
    print("| depth | " + " | ".join(f"{stage} {N}" for stage, N in columns) + " |")
    print("|---:|" + "---:|" * len(columns))
    for depth in dict.fromkeys(r["depth"] for r in rows):
        cells = [next(float(r["gupdates_per_s"]) for r in rows if (r["stage"], r["N"], r["depth"]) == (stage, N, depth))
                 for stage, N in columns]
        print(f"| {depth} | " + " | ".join(f"{v:.1f}" for v in cells) + " |")
    print()


def split_runs(rows):
    """jacobi's rows for the multi-GPU stages ("multi x2": a stage over 2 GPUs), and the name of
    the one-GPU stage it ran beside them (their speed-up is over it)."""
    spread = [r for r in rows if " x" in r["stage"]]
    return spread, next(r["stage"] for r in rows if " x" not in r["stage"])


def plot_scaling(rows, out):
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.8))
    spread, single = split_runs(rows)
    for stage in dict.fromkeys(r["stage"].split(" x")[0] for r in spread):
        pts = [(int(r["gpus"]), float(r["speedup"]), float(r["efficiency"])) for r in spread
               if r["stage"].split(" x")[0] == stage]
        left.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=stage)
        right.plot([p[0] for p in pts], [p[2] for p in pts], marker="o", label=stage)
    left.plot([1, 4], [1, 4], color="grey", linestyle="--", linewidth=0.8, label="ideal")
    left.set_xlabel("GPUs")
    left.set_ylabel(f"speed-up over {single} on 1 GPU")
    right.set_xlabel("GPUs")
    right.set_ylabel("parallel efficiency (%)")
    right.set_ylim(0, 105)
    for ax in (left, right):
        ax.set_xticks([1, 2, 4])
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"N = {rows[0]['N']}, {rows[0]['iterations']} iterations, H200s joined by NVLink", fontsize=10)
    save(fig, out)


def pgm_to_png(pgm, out):
    plt = pyplot()
    import numpy as np
    data = open(pgm, "rb").read()
    magic, size, maxval, pixels = data.split(b"\n", 3)
    width, height = (int(v) for v in size.split())
    image = np.frombuffer(pixels, dtype=np.uint8).reshape(height, width)
    plt.imsave(out, image, cmap="inferno")
    print(f"wrote {out}")


def markdown(prefix):
    sizes = load(prefix + "_sizes.csv")
    print("| stage | N | iterations | time (s) | Gupdates/s | GB/s at 24 B/update | % of copy (same run) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in sizes:
        pct = f"{float(r['pct_copy']):.1f}" if r["pct_copy"] else "-"
        print(f"| {r['stage']} | {r['N']} | {r['iterations']} | {float(r['time_s']):.4f} | {float(r['gupdates_per_s']):.2f} "
              f"| {float(r['gb_per_s']):.0f} | {pct} |")
    print()
    if os.path.exists(prefix + "_depths.csv"):
        depth_table(load(prefix + "_depths.csv"))
    spread, single = split_runs(load(prefix + "_scaling.csv"))
    print(f"| stage | GPUs | time (s) | Gupdates/s | speed-up over {single} | efficiency (%) | copy measured in the run (GB/s) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in spread:
        print(f"| {r['stage']} | {r['gpus']} | {float(r['time_s']):.4f} | {float(r['gupdates_per_s']):.1f} "
              f"| {float(r['speedup']):.2f} | {float(r['efficiency']):.1f} | {copy_gbps(r):.0f} |")
    print()


def plots(prefix, to):
    plot_sizes(load(prefix + "_sizes.csv"), to + "_sizes.png")
    if os.path.exists(prefix + "_depths.csv"):
        plot_depths(load(prefix + "_depths.csv"), to + "_depths.png")
    scaling = load(prefix + "_scaling.csv")
    if max(int(r["gpus"]) for r in scaling) > 1:
        plot_scaling(scaling, to + "_scaling.png")
    if os.path.exists(prefix + "_radiator.pgm"):
        pgm_to_png(prefix + "_radiator.pgm", to + "_radiator.png")


if __name__ == "__main__":
    run_prefix_tool(__doc__, markdown, plots)
