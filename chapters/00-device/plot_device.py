#!/usr/bin/env python3
"""Plots and tables for chapter 00-device, from the CSVs of chapters/00-device/bench_device.sh.

Usage: plot_device.py PREFIX [--heat HEAT.csv] [--markdown] [--out DIR]
  PREFIX_bandwidth.csv -> DIR/NAME_bandwidth.png GB/s against copy size, one line per kind
  PREFIX_peak.csv      -> DIR/NAME_roofline.png attainable GFLOP/s against arithmetic intensity,
                                                 with the heat stages of HEAT.csv placed on it
  --markdown  print the ceilings, the largest-size bandwidths and selected properties as tables
  --out DIR   where the pictures go (default plots/), NAME being PREFIX's last part;
              --out chapters/NN-.../results redraws the committed ones
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))  # plotting.py, chapters.py

from plotting import load, log_axes, pictures, prefix_parser, pyplot, run, save  # noqa: E402


def plot_bandwidth(rows, out):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for kind in dict.fromkeys(r["kind"] for r in rows):
        points = [(int(r["bytes"]), float(r["gb_per_s"])) for r in rows if r["kind"] == kind]
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3, label=kind)
    log_axes(ax, "bytes per copy", "GB/s (D2D: read + write)", f"measured copy bandwidth, {rows[0]['device']}")
    save(fig, out)


def ceiling(peak, prefix):
    return next(float(r["measured"]) for r in peak if r["ceiling"].startswith(prefix))


def plot_roofline(peak, heat, out):
    plt = pyplot()
    copy_gbps = ceiling(peak, "D2D copy")
    intensities = [2 ** (e / 4) for e in range(-16, 41)]  # 1/16 .. 1024 flop per byte
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for prefix, style in (("cuBLAS DGEMM", "-"), ("FP32 FMA", "--"), ("FP64 FMA", ":")):
        top = ceiling(peak, prefix)
        ax.plot(intensities, [min(top, i * copy_gbps) for i in intensities], style,
                label=f"{prefix}: {top / 1000:.1f} TFLOP/s")
    ridge = ceiling(peak, "FP32 FMA") / copy_gbps
    ax.annotate(f"ridge {ridge:.0f} flop/B (FP32)", (ridge, ceiling(peak, "FP32 FMA")), fontsize=8,
                xytext=(ridge * 2, ceiling(peak, "FP32 FMA") / 8), arrowprops={"arrowstyle": "->"})
    if heat:
        for r in heat:
            # GPU stages: 9 flops per update (5 adds, 6*in, one subtract, c*, + in) over 8 bytes
            if r["pct_copy"] and r["block"] != "-":
                ax.plot([9 / 8], [9 * float(r["gcells_per_s"])], "o", label=f"heat {r['stage']} (512^3)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (flop per byte of device memory traffic)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title(f"roofline from ceilings measured on {peak[0]['device']}\n"
                 f"memory slope: {copy_gbps:.0f} GB/s measured device-to-device copy", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    save(fig, out)


def theoretical(row):
    return f"{float(row['theoretical']):.0f}" if row["theoretical"] else "-"


def markdown(prefix):
    peak = load(prefix + "_peak.csv")
    print("| ceiling | measured | theoretical | unit | % of theoretical | result checked |")
    print("|---|---:|---:|---|---:|---|")
    for r in peak:
        print(f"| {r['ceiling']} | {float(r['measured']):.0f} | {theoretical(r)} "
              f"| {r['unit']} | {float(r['pct_theoretical']):.1f} | {r['verified']} |")
    print()
    rows = load(prefix + "_bandwidth.csv")
    largest = max(int(r["bytes"]) for r in rows)
    print(f"| copy | GB/s at 4 KiB | GB/s at 1 MiB | GB/s at {largest >> 20} MiB |")
    print("|---|---:|---:|---:|")
    for kind in dict.fromkeys(r["kind"] for r in rows):
        at = {int(r["bytes"]): float(r["gb_per_s"]) for r in rows if r["kind"] == kind}
        print(f"| {kind} | {at.get(4096, float('nan')):.2f} | {at.get(1 << 20, float('nan')):.1f} | {at[largest]:.1f} |")
    print()


def main(argv):
    parser = prefix_parser(__doc__)
    parser.add_argument("--heat", metavar="HEAT.csv")
    args = parser.parse_args(argv)
    prefix = args.prefix
    heat = load(args.heat) if args.heat else None
    if args.markdown:
        markdown(prefix)
        return 0
    to = pictures(args)
    plot_bandwidth(load(prefix + "_bandwidth.csv"), to + "_bandwidth.png")
    plot_roofline(load(prefix + "_peak.csv"), heat, to + "_roofline.png")
    return 0


if __name__ == "__main__":
    run(main)
