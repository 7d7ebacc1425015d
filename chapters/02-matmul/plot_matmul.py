#!/usr/bin/env python3
"""Plot and tabulate chapter 02-matmul's benchmark (the CSV of matmul_bench --csv) and profile
(the CSV of chapters/02-matmul/profile_matmul.sh).

Usage: plot_matmul.py RESULT.csv [--png OUT.png] [--markdown] [--ncu PROFILE.csv]
       plot_matmul.py --timeline TIMELINE.csv --png OUT.png
  --png       GFLOP/s against N (square matrices, log-log): device only (solid) and host to
              host through the course interface (dashed), OpenBLAS on the CPU for reference,
              and the FP64 FMA (measured in the same run) and FP64 tensor (theoretical) peaks
  --markdown  the tables of the lesson: every type at N = 1024 and 4096, the progression at
              4096 and 8192 against the peaks and cuBLAS, each type's variants (matmul_bench's sweeps)
  --ncu       the Nsight Compute table: time, traffic, bank conflicts, pipes, stalls, limiter
  --timeline  gpu9's timeline of one call (MATMUL_GPU9_TIMELINE=FILE matmult_f gpu9 ...): the
              CPU's copies and the three streams' copies and products, one lane each (--png)
"""
import functools
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))  # plotting.py, chapters.py

import chapters  # noqa: E402
from plotting import InputError, Parser, busiest, load, log_axes, ncu_profiles, png, pyplot, run, save  # noqa: E402


def plotted(rows):
    """The chapter's types, in lesson order, that the run timed up to its largest size (nat and
    gpu1 stop early: one core, one thread)."""
    largest = max(int(r["m"]) for r in rows)
    timed = {r["type"] for r in rows if int(r["m"]) == largest}
    return [s.name for s in chapters.read_stages(["02-matmul"]) if s.name in timed]


@functools.cache  # the tables ask again for every size: the files are read once
def timed_gpu_types():
    untimed = chapters.read_chapters()["02-matmul"].untimed
    return [s.name for s in chapters.read_stages(["02-matmul"]) if s.side == "gpu" and s.name not in untimed]


@functools.cache
def reference():
    """The type the tables compare with (cuBLAS), as chapters.list names it."""
    return chapters.show("02-matmul", "reference")[0]


def cpu_library(rows):
    """The last CPU type of the list that the run has (OpenBLAS), for the tables' host column."""
    ran = {r["type"] for r in rows}
    return [s.name for s in chapters.read_stages(["02-matmul"]) if s.side == "cpu" and s.name in ran][-1]


def square(rows):
    return [r for r in rows if r["m"] == r["n"] == r["k"]]


def value(r, key, digits=0):
    return f"{float(r[key]):.{digits}f}" if r.get(key) else "-"


def plot(rows, out):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8.5, 5))
    rows = square(rows)
    colours = {}
    for t in plotted(rows):
        points = [(int(r["m"]), r) for r in rows if r["type"] == t]
        for key, style in (("device_gflops", "-"), ("host_gflops", "--")):
            xy = [(n, float(r[key])) for n, r in points if r[key]]
            if not xy:
                continue
            threads = points[0][1].get("cpu_threads")
            label = t + (" (device only)" if key == "device_gflops" else " (host to host)" if not threads else "")
            if threads:  # the CPU library: host to host is all it has
                label = f"{t}: OpenBLAS, {threads} CPU threads"
                style = "-"
            line, = ax.plot([p[0] for p in xy], [p[1] for p in xy], style, marker="o", markersize=3, label=label,
                            color=colours.get(t))
            colours[t] = line.get_color()
    for key, label in (("fp64_fma_gflops", "FP64 FMA peak (measured)"),
                       ("fp64_tensor_peak_gflops", "FP64 tensor peak (theoretical)")):
        ax.axhline(float(rows[0][key]), color="grey", linestyle=":" if "fma" in key else "-.", linewidth=1, label=label)
    log_axes(ax, "N (C = A B, all N x N, double)", "GFLOP/s", f"matrix multiply on {rows[0]['device']}",
             legend_size=7, legend_columns=2)
    save(fig, out)


def markdown(rows):
    sq = square(rows)
    types = {s.name for s in chapters.read_stages(["02-matmul"])}
    for n in (1024, 4096):
        print(f"**N = {n}**\n")
        print("| type | host to host (ms) | host to host GFLOP/s | device only (ms) | device only GFLOP/s |")
        print("|---|---:|---:|---:|---:|")
        for r in sq:
            if int(r["m"]) == n and r["type"] in types:  # the types, not their variants
                name = r["type"] + (f" ({r['cpu_threads']} threads)" if r.get("cpu_threads") else "")
                print(f"| {name} | {value(r, 'host_ms', 2)} | {value(r, 'host_gflops')} | {value(r, 'device_ms', 2)} "
                      f"| {value(r, 'device_gflops')} |")
        print()
    sizes = sorted({int(r["m"]) for r in sq if int(r["m"]) >= 256})
    by = {(r["type"], int(r["m"])): r for r in sq}
    print("Device-only GFLOP/s by N:\n")
    ran = list(dict.fromkeys(r["type"] for r in rows))
    shown = [t for t in timed_gpu_types() if t in ran]
    print("| N | " + " | ".join(shown) + " |")
    print("|---:|" + "---:|" * len(shown))
    for n in sizes:
        print(f"| {n} | " + " | ".join(value(by[(t, n)], "device_gflops") if (t, n) in by else "-" for t in shown) + " |")
    print()
    print("Non-square shapes (m x n x k), device-only GFLOP/s:\n")
    shapes = list(dict.fromkeys((r["m"], r["n"], r["k"]) for r in rows if not (r["m"] == r["n"] == r["k"])))
    cpu = cpu_library(rows)
    print(f"| shape | {cpu} (host) | " + " | ".join(shown) + " |")
    print("|---|---:|" + "---:|" * len(shown))
    at = {(r["type"], (r["m"], r["n"], r["k"])): r for r in rows}
    for sh in shapes:
        print(f"| {'x'.join(sh)} | {value(at[(cpu, sh)], 'host_gflops')} | " +
              " | ".join(value(at[(t, sh)], "device_gflops") if (t, sh) in at else "-" for t in shown) + " |")
    print()
    for stage in shown:  # each type's variants (TYPE_VARIANT, as matmul_bench names them)
        variants = sorted(t for t in ran if t.startswith(stage + "_"))
        if not variants:
            continue
        print(f"{stage} and its variants, device-only GFLOP/s by N and on the non-square shapes, "
              f"cuBLAS of the same run last:\n")
        print("| variant | " + " | ".join(str(n) for n in sizes) + " | " + " | ".join("x".join(sh) for sh in shapes) + " |")
        print("|---|" + "---:|" * (len(sizes) + len(shapes)))
        for t in [stage] + variants + [reference()]:
            print(f"| {t} | " + " | ".join(value(by[(t, n)], "device_gflops") if (t, n) in by else "-" for n in sizes)
                  + " | " + " | ".join(value(at[(t, sh)], "device_gflops") if (t, sh) in at else "-" for sh in shapes)
                  + " |")
        print()


def progression(rows):
    """Each GPU type at the two largest sizes, against the peaks and cuBLAS of the same run."""
    fma, tensor = float(rows[0]["fp64_fma_gflops"]), float(rows[0]["fp64_tensor_peak_gflops"])
    by = {(r["type"], int(r["m"])): r for r in square(rows)}
    library = reference()
    print(f"Device only, against the FP64 FMA rate measured in the same run ({fma:.0f} GFLOP/s), the FP64 tensor "
          f"cores' theoretical rate ({tensor:.0f}) and cuBLAS:\n")
    print("| type | N | GFLOP/s | % of FP64 FMA | % of FP64 tensor | % of cuBLAS | host to host GFLOP/s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for t in timed_gpu_types():
        for n in (4096, 8192):
            if (t, n) in by:
                got, lib = float(by[(t, n)]["device_gflops"]), float(by[(library, n)]["device_gflops"])
                print(f"| {t} | {n} | {got:.0f} | {100 * got / fma:.1f}% | {100 * got / tensor:.1f}% | "
                      f"{100 * got / lib:.1f}% | {value(by[(t, n)], 'host_gflops')} |")
    print()


PIPES = {"sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active": "FP64 pipe",
         "sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active": "tensor (DMMA) pipe",
         "l1tex__throughput.avg.pct_of_peak_sustained_elapsed": "L1/shared",
         "lts__throughput.avg.pct_of_peak_sustained_elapsed": "L2",
         "dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM"}
STALL = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"


def ncu_table(path):
    print("| type | ms | GFLOP/s | DRAM GB | L2 GB | shared wavefronts (M) | bank conflicts (M) | FP64 pipe "
          "| tensor pipe | warps active | registers | longest wait (cycles per instruction) | limiter |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for t, (labels, m) in ncu_profiles(path).items():
        n = int(labels["n"])
        seconds = m["gpu__time_duration.sum"] / 1e9
        stalls = {k: v for k, v in m.items() if k.startswith("smsp__average_warps_issue_stalled_")}
        worst = max(stalls, key=stalls.get)
        reason = worst[len("smsp__average_warps_issue_stalled_"):-len("_per_issue_active.ratio")].replace("_", " ")
        print(f"| {t} | {seconds * 1e3:.2f} | {2 * n ** 3 / seconds / 1e9:.0f} | "
              f"{(m['dram__bytes_read.sum'] + m['dram__bytes_write.sum']) / 1e9:.2f} | {m['lts__t_bytes.sum'] / 1e9:.1f} | "
              f"{m['l1tex__data_pipe_lsu_wavefronts_mem_shared.sum'] / 1e6:.0f} | "
              f"{m['l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum'] / 1e6:.1f} | "
              f"{m[next(iter(PIPES))]:.0f}% | {m[list(PIPES)[1]]:.0f}% | "
              f"{m['sm__warps_active.avg.pct_of_peak_sustained_active']:.0f}% | {m.get('launch__registers_per_thread', float('nan')):.0f} | "
              f"{reason} {stalls[worst]:.1f} | {busiest(m, PIPES)} |")
    print()


TIMELINE_LANES = ("cpu", "in", "compute", "out")
TIMELINE_COLOURS = {"B": "tab:blue", "A": "tab:green", "product": "tab:red", "C": "tab:purple"}


def timeline(path, out):
    """One bar per span, a lane per stream (and the CPU), coloured by what moves."""
    rows = load(path)
    for column in ("lane", "what", "start_ms", "end_ms"):
        if column not in rows[0]:
            raise InputError(f"{path}: no column {column!r} (not a gpu9 timeline?)")
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(11, 3.2))
    for r in rows:
        if r["lane"] not in TIMELINE_LANES:
            raise InputError(f"{path}: lane {r['lane']!r} is none of {', '.join(TIMELINE_LANES)}")
        y = TIMELINE_LANES.index(r["lane"])
        start, end = float(r["start_ms"]), float(r["end_ms"])
        ax.barh(y, end - start, left=start, height=0.6, color=TIMELINE_COLOURS.get(r["what"], "grey"))
    ax.set_yticks(range(len(TIMELINE_LANES)), ["CPU copies", "stream in", "stream compute", "stream out"])
    ax.invert_yaxis()
    ax.set_xlabel("ms from the call's start")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in TIMELINE_COLOURS.values()]
    ax.legend(handles, list(TIMELINE_COLOURS), loc="lower right", ncol=len(TIMELINE_COLOURS))
    ax.set_title("gpu9, one call host to host: copies and products overlapped")
    save(fig, out)


def main(argv):
    parser = Parser(__doc__)
    parser.add_argument("result", nargs="?", metavar="RESULT.csv")
    parser.add_argument("--png", metavar="OUT.png", type=png)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--ncu", metavar="PROFILE.csv")
    parser.add_argument("--timeline", metavar="TIMELINE.csv")
    args = parser.parse_args(argv)
    if args.timeline:
        if not args.png:
            parser.error("--timeline draws a picture: give --png OUT.png")
        timeline(args.timeline, args.png)
        return 0
    if not args.result and not args.ncu:
        parser.error("give RESULT.csv, --ncu PROFILE.csv, or both")
    if args.result and not (args.markdown or args.png):
        parser.error("nothing to do with RESULT.csv: give --markdown, --png OUT.png or both")
    if args.ncu:
        ncu_table(args.ncu)
        if not args.result:
            return 0
    rows = load(args.result)
    if args.markdown:
        markdown(rows)
        progression(rows)
    if args.png:
        plot(rows, args.png)
    return 0


if __name__ == "__main__":
    run(main)
