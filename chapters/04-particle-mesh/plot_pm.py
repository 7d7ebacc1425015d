#!/usr/bin/env python3
"""Plots and tables for chapter 04-particle-mesh, from chapters/04-particle-mesh/bench_pm.sh's CSVs.

Usage: plot_pm.py PREFIX [--markdown] [--out DIR]
  PREFIX_part2data_sizes.csv -> DIR/NAME_part2data.png GB/s at 16 B/particle against the count
  PREFIX_strips.csv          -> DIR/NAME_strips.png  % of copy against the strip length (the stage
                                                      chapters.list's strip_sweep names)
  PREFIX_transfers.csv       -> DIR/NAME_transfers.png the cost of getting the data there and back
  --markdown                 print the lesson's tables instead (also from PREFIX_ncu_*.csv)
  --out DIR                  where the pictures go (default plots/), NAME being PREFIX's last part;
                             --out chapters/NN-.../results redraws the committed ones
"""
import csv
import io
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))  # plotting.py, chapters.py

import chapters  # noqa: E402
from plotting import InputError, copy_gbps, load, pyplot, read_lines, run_prefix_tool, save  # noqa: E402


def device(rows):
    return rows[0]["device"].split(" (")[0]


def plot_part2data(rows, out):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for stage in dict.fromkeys(r["stage"] for r in rows):
        pts = [(int(r["problem"].split()[0]), float(r["gb_per_s"])) for r in rows if r["stage"] == stage]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=stage)
    ceiling = copy_gbps(rows[0])
    ax.axhline(ceiling, color="grey", linestyle="--", linewidth=0.8)
    ax.text(pts[0][0], ceiling * 1.02, f"device-to-device copy: {ceiling:.0f} GB/s", fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("particles")
    ax.set_ylabel("GB/s at 16 B per particle")
    ax.set_title(f"part2data kernels, {device(rows)}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out)


def plot_strips(rows, out):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for problem in dict.fromkeys(r["problem"].split()[0] for r in rows):
        for axis, style in (("x", "-"), ("y", ":")):
            pts = [(int(r["strip"]), float(r["pct_copy"])) for r in rows
                   if r["problem"].split()[0] == problem and r["axis"] == axis]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", linestyle=style, label=f"{problem}, {axis}")
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 100)
    ax.set_xlabel("strip: cells per thread along the axis")
    ax.set_ylabel("% of the copy bandwidth (8 B per cell)")
    ax.set_title(f"force {rows[0]['stage']}: strip length, {device(rows)}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    save(fig, out)


def plot_transfers(rows, out):
    plt = pyplot()
    streamed = chapters.show("04-particle-mesh", "streamed_pieces")[0]  # the stage that streams in pieces
    r = next(r for r in rows if r["stage"] == streamed)
    labels = ["sequential\n(1 core)", "pageable", "pinned", "pinned +\nstreams", "kernel\nonly"]
    values = [float(r[k]) for k in ("sequential_ms", "plain_ms", "pinned_ms", "streamed_ms", "kernel_ms")]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    bars = ax.bar(labels, values, color=["#888", "#c55", "#e93", "#3a3", "#36c"])
    for bar, v in zip(bars, values):
        ax.text(bar.get_x() + bar.get_width() / 2, v * 1.1, f"{v:.2f} ms", ha="center", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("ms (log scale)")
    ax.set_title(f"part2data {streamed}, {r['problem'].split()[0]} particles, with the data starting on the host", fontsize=10)
    save(fig, out)


def ncu_rows(path):
    """Nsight Compute's CSV (after the program's own output): one dict per (kernel launch)."""
    text = "\n".join(read_lines(path)) + "\n"
    if '"ID"' not in text:
        raise InputError(f"{path}: no Nsight Compute CSV in it (no \"ID\" column)")
    rows = list(csv.DictReader(io.StringIO(text[text.index('"ID"'):])))
    kernels = {}
    for r in rows:
        k = kernels.setdefault(r["ID"], {"kernel": r["Kernel Name"].split("(")[0].replace("<unnamed>::", "")})
        k[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return list(kernels.values())


def markdown(prefix):
    p2d = load(f"{prefix}_part2data.csv")
    print(f"part2data, {p2d[0]['problem']}; {p2d[0]['copy ceiling']}\n")
    print("| stage | time (ms) | Gparticles/s | GB/s | % of copy | vs cpu |\n|---|---|---|---|---|---|")
    for r in p2d:
        pct = f"{float(r['pct_copy']):.1f}" if r["pct_copy"] else "-"
        print(f"| {r['stage']} | {float(r['time_ms']):.3f} | {float(r['gparticles_per_s']):.2f} | "
              f"{float(r['gb_per_s']):.0f} | {pct} | {float(r['speedup_cpu']):.0f} |")
    tr = load(f"{prefix}_transfers.csv")
    print(f"\ntransfers; {tr[0]['pinned copies']}\n")
    print("| stage | sequential | kernel only | with transfers | pinned | pinned + streams | still possible (plain) "
          "| still possible (streams) |\n|---|---|---|---|---|---|---|---|")
    for r in tr:
        cell = lambda k, x: f"{float(r[k]):.2f} (x{float(r[x]):.1f})"
        print(f"| {r['stage']} | {float(r['sequential_ms']):.1f} | {float(r['kernel_ms']):.3f} (x{float(r['kernel_x']):.0f}) | "
              f"{cell('plain_ms', 'plain_x')} | {cell('pinned_ms', 'pinned_x')} | {cell('streamed_ms', 'streamed_x')} | "
              f"x{float(r['possible_plain']):.0f} | x{float(r['possible_streamed']):.0f} |")
    pieces = load(f"{prefix}_pieces.csv")
    print("\n| pieces (4 streams) | " + " | ".join(r["streams"].split()[0] for r in pieces) + " |")
    print("|---" * (len(pieces) + 1) + "|")
    print(f"| {pieces[0]['stage']} pinned + streams (ms) | " + " | ".join(f"{float(r['streamed_ms']):.2f}" for r in pieces) + " |")
    force = load(f"{prefix}_force.csv")
    print(f"\nforces, {force[0]['problem']}; {force[0]['copy ceiling']}\n")
    print("| stage | axis | strip | time (ms) | GCells/s | GB/s | % of copy | vs cpu |\n|---|---|---|---|---|---|---|---|")
    for r in force:
        pct = f"{float(r['pct_copy']):.1f}" if r["pct_copy"] else "-"
        print(f"| {r['stage']} | {r['axis']} | {r['strip'] or '-'} | {float(r['time_ms']):.3f} | "
              f"{float(r['gcells_per_s']):.1f} | {float(r['gb_per_s']):.0f} | {pct} | {float(r['speedup_cpu']):.1f} |")
    for name in ("part2data", "force"):
        print(f"\nNsight Compute, {name} (one launch per kernel and axis)\n")
        print("| kernel | time (us) | load requests | sectors per request | L1 hit % | L2 sectors read | "
              "DRAM read (MB) | DRAM write (MB) |\n|---|---|---|---|---|---|---|---|")
        for k in ncu_rows(f"{prefix}_ncu_{name}.csv")[2::3]:  # the last of each stage's three launches
            req = k["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
            sec = k["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
            print(f"| {k['kernel']} | {k['gpu__time_duration.sum'] / 1e3:.0f} | {req / 1e6:.2f} M | {sec / req:.1f} | "
                  f"{k['l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct']:.1f} | "
                  f"{k['lts__t_sectors_srcunit_tex_op_read.sum'] / 1e6:.1f} M | {k['dram__bytes_read.sum'] / 1e6:.0f} | "
                  f"{k['dram__bytes_write.sum'] / 1e6:.0f} |")


def plots(prefix, to):
    plot_part2data(load(f"{prefix}_part2data_sizes.csv"), f"{to}_part2data.png")
    plot_strips(load(f"{prefix}_strips.csv"), f"{to}_strips.png")
    plot_transfers(load(f"{prefix}_transfers.csv"), f"{to}_transfers.png")


if __name__ == "__main__":
    run_prefix_tool(__doc__, markdown, plots)
