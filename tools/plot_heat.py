#!/usr/bin/env python3
"""Plot and tabulate the heat chapter's results from the CSVs that `heat3d --csv` writes.

Usage: plot_heat.py RESULT.csv [RESULT.csv ...] [--png OUT.png] [--markdown] [--sweep]
  --png       draw the stage progression: time per run (log scale) and % of the copy ceiling
  --markdown  print each file as a Markdown table (the lesson's tables are pasted from this)
  --sweep     print a block-shape sweep (tools/sweep_heat_blocks.sh) as a Markdown table, with
              the blocks launched per step and the time per block of the v2 kernel
"""
import sys

from plotting import load, pyplot, save


def number(text, digits):
    return "-" if text in ("", None) else f"{float(text):.{digits}f}"


def markdown(path, rows):
    first = rows[0]
    print(f"**{first['problem']}** on {first['device']}  ")
    for note in ("copy ceiling", "copy at field size", "launch floor"):
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
    nx, ny, nz = (int(v) for v in rows[0]["problem"].split(" cells")[0].split(" x "))
    steps = int(rows[0]["problem"].split(", ")[2].split()[0])
    shapes = list(dict.fromkeys(r["block"] for r in rows))
    by = {(r["stage"], r["block"]): r for r in rows}
    print(f"| block | threads | v2 blocks per step | v2 s per {steps} steps | v2 ns per block | v2 % of copy "
          f"| v4 s per {steps} steps | v4 % of copy |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for shape in shapes:
        bx, by_, bz = (int(v) for v in shape.split("x"))
        blocks = -(-nx // bx) * -(-ny // by_) * -(-nz // bz)
        v2, v4 = by[("v2", shape)], by[("v4", shape)]
        ns_per_block = float(v2["time_s"]) / steps / blocks * 1e9
        print(f"| {shape} | {bx * by_ * bz} | {blocks} | {number(v2['time_s'], 3)} | {ns_per_block:.2f} | "
              f"{number(v2['pct_copy'], 1)} | {number(v4['time_s'], 3)} | {number(v4['pct_copy'], 1)} |")


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
    paths = [a for a in argv if a.endswith(".csv")]
    if not paths or "--help" in argv:
        print(__doc__)
        return 0 if "--help" in argv else 2
    files = [(p, load(p)) for p in paths]
    if "--markdown" in argv:
        for path, rows in files:
            markdown(path, rows)
    if "--sweep" in argv:
        for path, rows in files:
            sweep(rows)
    if "--png" in argv:
        plot(files, argv[argv.index("--png") + 1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
