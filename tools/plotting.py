"""Helpers shared by the chapters' plot scripts: a program's CSV, matplotlib without a display,
log-log axes, and saving a figure."""
import csv


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise SystemExit(f"{path}: no rows")
    return rows


def copy_gbps(row):
    """The copy ceiling a program notes in every row ("4134 GB/s device-to-device ..."), in GB/s."""
    return float(row["copy ceiling"].split()[0])


def pyplot():
    import matplotlib
    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt
    return plt


def log_axes(ax, xlabel, ylabel, title, legend_size=8, legend_columns=1):
    """Log-log axes (powers of two along x), labelled, with a grid and a legend."""
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=legend_size, ncol=legend_columns)


def save(fig, out):
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
