#!/usr/bin/env python3
"""Plot and tabulate chapter 02-matmul's benchmark (the CSV of matmul_bench --csv).

Usage: plot_matmul.py RESULT.csv [--png OUT.png] [--markdown]
  --png       GFLOP/s against N (square matrices, log-log): device only (solid) and host to
              host through the course interface (dashed), OpenBLAS on the CPU for reference
  --markdown  the tables of the lesson: every type at N = 1024 and 4096, gpu3 below vs right,
              and the gpu4 sweep over elements per thread
"""
import sys

from plotting import load, log_axes, pyplot, save


def square(rows):
    return [r for r in rows if r["m"] == r["n"] == r["k"]]


def value(r, key, digits=0):
    return f"{float(r[key]):.{digits}f}" if r.get(key) else "-"


def plot(rows, out):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8.5, 5))
    rows = square(rows)
    colours = {}
    for t in ("lib", "gpu2", "gpu3", "gpu4", "gpu5", "gpulib"):
        points = [(int(r["m"]), r) for r in rows if r["type"] == t]
        for key, style in (("device_gflops", "-"), ("host_gflops", "--")):
            xy = [(n, float(r[key])) for n, r in points if r[key]]
            if not xy:
                continue
            label = t + (" (device only)" if key == "device_gflops" else " (host to host)" if t != "lib" else "")
            if t == "lib":
                label = f"lib: OpenBLAS, {points[0][1]['cpu_threads']} CPU threads"
                style = "-"
            line, = ax.plot([p[0] for p in xy], [p[1] for p in xy], style, marker="o", markersize=3, label=label,
                            color=colours.get(t))
            colours[t] = line.get_color()
    log_axes(ax, "N (C = A B, all N x N, double)", "GFLOP/s", f"matrix multiply on {rows[0]['device']}",
             legend_size=7, legend_columns=2)
    save(fig, out)


def markdown(rows):
    sq = square(rows)
    for n in (1024, 4096):
        print(f"**N = {n}**\n")
        print("| type | host to host (ms) | host to host GFLOP/s | device only (ms) | device only GFLOP/s |")
        print("|---|---:|---:|---:|---:|")
        for r in sq:
            if int(r["m"]) == n and not r["type"].startswith("gpu4_"):
                name = r["type"] + (f" ({r['cpu_threads']} threads)" if r["type"] == "lib" else "")
                print(f"| {name} | {value(r, 'host_ms', 2)} | {value(r, 'host_gflops')} | {value(r, 'device_ms', 2)} "
                      f"| {value(r, 'device_gflops')} |")
        print()
    sizes = sorted({int(r["m"]) for r in sq if int(r["m"]) >= 256})
    by = {(r["type"], int(r["m"])): r for r in sq}
    print("Device-only GFLOP/s by N:\n")
    types = ["gpu2", "gpu3", "gpu3r", "gpu4_2", "gpu4", "gpu4_8", "gpu4_16", "gpu5", "gpulib"]
    print("| N | " + " | ".join(t.replace("gpu4", "gpu4 (4)") if t == "gpu4" else t for t in types) + " |")
    print("|---:|" + "---:|" * len(types))
    for n in sizes:
        print(f"| {n} | " + " | ".join(value(by[(t, n)], "device_gflops") if (t, n) in by else "-" for t in types) + " |")
    print()
    print("Non-square shapes (m x n x k), device-only GFLOP/s:\n")
    shapes = list(dict.fromkeys((r["m"], r["n"], r["k"]) for r in rows if not (r["m"] == r["n"] == r["k"])))
    print("| shape | lib (host) | " + " | ".join(types) + " |")
    print("|---|---:|" + "---:|" * len(types))
    for sh in shapes:
        got = {r["type"]: r for r in rows if (r["m"], r["n"], r["k"]) == sh}
        print(f"| {'x'.join(sh)} | {value(got['lib'], 'host_gflops')} | " +
              " | ".join(value(got[t], "device_gflops") if t in got else "-" for t in types) + " |")
    print()


def main(argv):
    paths = [a for a in argv if a.endswith(".csv")]
    if len(paths) != 1 or "--help" in argv:
        print(__doc__)
        return 0 if "--help" in argv else 2
    rows = load(paths[0])
    if "--markdown" in argv:
        markdown(rows)
    if "--png" in argv:
        plot(rows, argv[argv.index("--png") + 1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
