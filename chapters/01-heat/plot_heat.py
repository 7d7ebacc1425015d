#!/usr/bin/env python3
"""Plot and tabulate the heat chapter's results from the CSVs that `heat3d --csv` writes.

Usage: plot_heat.py RESULT.csv [RESULT.csv ...] [--png OUT.png] [--markdown] [--sweep] [--variants]
       plot_heat.py --sizes SIZES.csv [--png OUT.png]
       plot_heat.py --ncu NCU.csv TOUR_512.csv
  --png       draw the stage progression: time per run (log scale) and % of the copy ceiling
  --markdown  print each file as a Markdown table (the lesson's tables are pasted from this)
  --sweep     print a block-shape sweep (chapters/01-heat/sweep_heat_blocks.sh) as a Markdown table, with
              the blocks launched per step and the time per block of the first stage
  --variants  print the rows of a sweep of stages and variants (chapters/01-heat/bench_heat.sh's
              *_512_sweep.csv, *_128_alternatives.csv), with the single-step bound of the run
  --sizes     print a size sweep (chapters/01-heat/bench_heat.sh's *_sizes.csv): each stage's time per
              step at each shape and its speed against v5's on the same shape; with --png, plot that speed
  --ncu       print the Nsight Compute table (chapters/01-heat/bench_heat.sh's *_ncu_512.csv) and each
              stage's place on the roofline, with the rates and the copy ceiling of the tour
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))  # plotting.py, chapters.py

from plotting import Parser, busiest, load, ncu_profiles, png, pyplot, run, save  # noqa: E402


def number(text, digits):
    return "-" if text in ("", None) else f"{float(text):.{digits}f}"


def markdown(path, rows):
    first = rows[0]
    print(f"**{first['problem']}** on {first['device']}  ")
    for note in ("copy ceiling", "copy at field size", "copy by a kernel", "launch floor", "grid barrier"):
        if first.get(note):
            print(f"{note}: {first[note]}  ")
    print()
    steps = first["problem"].split(", ")[2].split()[0] if ", " in first["problem"] else "N"
    print(f"| stage | what | block | time per {steps} steps (s) | vs prev | vs v0 | GCells/s | GB/s | % of copy |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['stage']} | {r['what']} | {r['block']} | {number(r['time_s'], 4)} | "
              f"{number(r['speedup_prev'], 2)} | {number(r['speedup_v0'], 1)} | {number(r['gcells_per_s'], 2)} | "
              f"{number(r['gb_per_s'], 0)} | {number(r['pct_copy'], 1)} |")
    print()


def sweep(rows):
    """Each block shape: for the first stage swept (one cell per thread: chapters.list's
    block_shapes starts with it), the blocks it launches per step and its time per block; for
    every stage, its time and its % of copy."""
    nx, ny, nz = (int(v) for v in rows[0]["problem"].split(" cells")[0].split(" x "))
    steps = int(rows[0]["problem"].split(", ")[2].split()[0])
    shapes = list(dict.fromkeys(r["block"] for r in rows))
    first, *others = dict.fromkeys(r["stage"] for r in rows)
    by = {(r["stage"], r["block"]): r for r in rows}
    print(f"| block | threads | {first} blocks per step | {first} s per {steps} steps | {first} ns per block | "
          f"{first} % of copy | " + " | ".join(f"{s} s per {steps} steps | {s} % of copy" for s in others) + " |")
    print("|---|---:|---:|---:|---:|---:|" + "---:|---:|" * len(others))
    for shape in shapes:
        bx, by_, bz = (int(v) for v in shape.split("x"))
        blocks = -(-nx // bx) * -(-ny // by_) * -(-nz // bz)
        one = by[(first, shape)]
        cells = [str(blocks), number(one["time_s"], 3), f"{float(one['time_s']) / steps / blocks * 1e9:.2f}",
                 number(one["pct_copy"], 1)]
        for s in others:
            cells += [number(by[(s, shape)]["time_s"], 3), number(by[(s, shape)]["pct_copy"], 1)]
        print(f"| {shape} | {bx * by_ * bz} | " + " | ".join(cells) + " |")


def copy_gbps(row):
    return float(row["copy ceiling"].split()[0])


def variants(rows):
    steps = rows[0]["problem"].split(", ")[2].split()[0]
    print(f"| stage | what | block | s per {steps} steps | GCells/s | % of copy | x single-step bound |")
    print("|---|---|---|---:|---:|---:|---:|")
    for r in rows:
        bound = copy_gbps(r) / 8  # GCells/s at 8 B per update
        print(f"| {r['stage']} | {r['what']} | {r['block']} | {number(r['time_s'], 4)} | {number(r['gcells_per_s'], 1)} | "
              f"{number(r['pct_copy'], 1)} | {float(r['gcells_per_s']) / bound:.2f} |")
    print()


FLOPS_PER_UPDATE = 9  # 6 neighbour adds, the centre's -6 x, the product by coeff and the sum


UNITS = {"dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM",
         "lts__throughput.avg.pct_of_peak_sustained_elapsed": "L2",
         "l1tex__throughput.avg.pct_of_peak_sustained_elapsed": "L1/shared",
         "sm__throughput.avg.pct_of_peak_sustained_elapsed": "SM (instructions)"}


def ncu_table(ncu_path, tour_path):
    tour = {r["stage"]: r for r in load(tour_path)}
    first = next(iter(tour.values()))
    nx, ny, nz = (int(v) for v in first["problem"].split(" cells")[0].split(" x "))
    updates = (nx - 2) * (ny - 2) * (nz - 2)
    copy = copy_gbps(first)
    print("| stage | steps per launch | µs per step | DRAM read B/update | DRAM write B/update | L1 hit | L2 hit "
          "| warps active | registers | instructions per update | limiter |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    places = []
    for stage, (labels, m) in ncu_profiles(ncu_path).items():
        steps = int(labels.get("steps") or labels["steps per launch"])  # the older profiles: one launch
        per = updates * steps
        read, write = m["dram__bytes_read.sum"] / per, m["dram__bytes_write.sum"] / per
        print(f"| {stage} | {steps / int(labels['launches']):.3g} | {m['gpu__time_duration.sum'] / 1e3 / steps:.0f} | {read:.2f} | {write:.2f} | "
              f"{m['l1tex__t_sector_hit_rate.pct']:.0f}% | {m['lts__t_sector_hit_rate.pct']:.0f}% | "
              f"{m['sm__warps_active.avg.pct_of_peak_sustained_active']:.0f}% | {m['launch__registers_per_thread']:.0f} | "
              f"{m['smsp__inst_executed.sum'] * 32 / per:.1f} | {busiest(m, UNITS)} |")
        if stage in tour and tour[stage]["gcells_per_s"]:
            places.append((stage, FLOPS_PER_UPDATE / (read + write), FLOPS_PER_UPDATE * float(tour[stage]["gcells_per_s"])))
    print()
    print(f"Roofline, memory roof {copy:.0f} GB/s (the tour's copy ceiling), {FLOPS_PER_UPDATE} flops per update:")
    print()
    print("| stage | flops per DRAM byte | GFLOP/s (tour) | memory roof there (GFLOP/s) | % of the roof |")
    print("|---|---:|---:|---:|---:|")
    for stage, intensity, gflops in places:
        print(f"| {stage} | {intensity:.2f} | {gflops:.0f} | {copy * intensity:.0f} | {100 * gflops / (copy * intensity):.0f}% |")
    print()


def per_shape(rows):
    """{shape: {stage: microseconds per step}} in the file's order, shapes as "NXxNYxNZ"; a stage
    timed again on the same shape in another block is "STAGE BLOCK"."""
    shapes = {}
    for r in rows:
        times = shapes.setdefault(r["problem"].split(" cells")[0].replace(" x ", "x"), {})
        name = r["stage"] if r["stage"] not in times else f"{r['stage']} {r['block']}"
        steps = int(r["problem"].split(" steps")[0].rsplit(" ", 1)[-1])  # time_s is per the run's steps
        times[name] = 1e6 * float(r["time_s"]) / steps
    return shapes


def sizes(rows):
    shapes = per_shape(rows)
    others = [s for s in dict.fromkeys(name for times in shapes.values() for name in times) if s != "v5"]
    print(f"**{rows[0]['device']}**: microseconds per step; in brackets, the stage's speed against v5 on the "
          "same shape (above 1: faster)  ")
    print("| shape | v5 | " + " | ".join(others) + " |")
    print("|---|---:|" + "---:|" * len(others))
    for shape, times in shapes.items():
        cells = [f"{times[s]:.1f} ({times['v5'] / times[s]:.2f})" if s in times else "-" for s in others]
        print(f"| {shape} | {times['v5']:.1f} | " + " | ".join(cells) + " |")
    print()


def plot_sizes(rows, out):
    plt = pyplot()
    shapes = per_shape(rows)
    fig, axes = plt.subplots(figsize=(11, 4.2))
    names = list(shapes)
    for stage in dict.fromkeys(name for times in shapes.values() for name in times):
        points = [(i, shapes[n]["v5"] / shapes[n][stage]) for i, n in enumerate(names) if stage in shapes[n]]
        axes.plot([i for i, _ in points], [v for _, v in points], marker="o", label=stage)
    axes.axhline(0.95, color="grey", linewidth=0.8, linestyle="--")
    axes.set_xticks(range(len(names)), names, rotation=30, ha="right")
    axes.set_yscale("log")
    axes.set_ylabel("speed against v5 (log; above 1: faster)")
    axes.set_title(f"3D heat diffusion, each stage against v5 on the same shape, {rows[0]['device']}")
    axes.legend()
    fig.tight_layout()
    save(fig, out)


def plot(files, out):
    plt = pyplot()

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    width = 0.8 / len(files)
    for n, (path, rows) in enumerate(files):
        label = rows[0]["problem"].split(" cells")[0].replace(" x ", "x")
        xs = [i + (n - (len(files) - 1) / 2) * width for i in range(len(rows))]
        left.bar(xs, [float(r["time_s"]) for r in rows], width, label=label)
        gpu = [(x, r) for x, r in zip(xs, rows) if r["pct_copy"]]
        right.bar([x for x, _ in gpu], [float(r["pct_copy"]) for _, r in gpu], width, label=label)
    names = [r["stage"] for r in files[0][1]]
    left.set_xticks(range(len(names)), names)
    left.set_yscale("log")
    left.set_ylabel("seconds per 5000 steps (log)")
    left.set_title("time per run, lower is better")
    left.legend()
    right.set_xticks(range(len(names)), names)
    right.set_ylabel("% of measured device-to-device copy bandwidth")
    right.axhline(100, color="grey", linewidth=0.8)
    right.set_title("effective bandwidth at 8 B per cell update")
    right.legend()
    fig.suptitle(f"3D heat diffusion on {files[0][1][0]['device']}")
    save(fig, out)


def main(argv):
    parser = Parser(__doc__)
    parser.add_argument("paths", nargs="*", metavar="RESULT.csv")
    parser.add_argument("--png", metavar="OUT.png", type=png)
    parser.add_argument("--ncu", metavar="NCU.csv")
    parser.add_argument("--sizes", metavar="SIZES.csv")
    for flag in ("--markdown", "--sweep", "--variants"):
        parser.add_argument(flag, action="store_true")
    args = parser.parse_intermixed_args(argv)  # the lessons put the options before and after the CSVs
    paths = args.paths
    if args.sizes:
        if paths or args.ncu or args.markdown or args.sweep or args.variants:
            parser.error("--sizes SIZES.csv takes no other file or table (only --png OUT.png)")
        rows = load(args.sizes)
        if not any(r["stage"] == "v5" for r in rows):
            parser.error(f"{args.sizes} has no v5 row: the sweep compares every stage with v5")
        plot_sizes(rows, args.png) if args.png else sizes(rows)
        return 0
    if not paths:
        parser.error("--ncu NCU.csv needs the tour's TOUR_512.csv too" if args.ncu else "no RESULT.csv given")
    if not (args.ncu or args.png or args.markdown or args.sweep or args.variants):
        parser.error("nothing to do: give --markdown, --png OUT.png, --sweep, --variants, --sizes SIZES.csv or --ncu NCU.csv")
    if args.ncu:
        ncu_table(args.ncu, paths[0])
        return 0
    files = [(p, load(p)) for p in paths]
    if args.variants:
        for path, rows in files:
            variants(rows)
    if args.markdown:
        for path, rows in files:
            markdown(path, rows)
    if args.sweep:
        for path, rows in files:
            sweep(rows)
    if args.png:
        plot(files, args.png)
    return 0


if __name__ == "__main__":
    run(main)
