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


def ncu_profiles(path):
    """{name: (labels, {metric: value})} from a profile written by a bench script: a line such as
    "# stage v6, steps per launch 3" (name "v6", labels {"stage": "v6", "steps per launch": "3"})
    before the CSV lines that ncu printed for that run."""
    profiles, name, header = {}, None, None
    for line in open(path):
        if line.startswith("# "):
            labels = dict(part.rsplit(" ", 1) for part in line[2:].strip().split(", "))
            name = next(iter(labels.values()))
            profiles[name] = (labels, {})
        elif line.startswith('"ID"'):
            header = next(csv.reader([line]))
        elif line.startswith('"') and name:
            row = dict(zip(header, next(csv.reader([line]))))
            profiles[name][1][row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    return profiles


def busiest(metrics, units):
    """The busiest of `units` ({metric: what it measures}), or latency when none is past 60%
    (Nsight Compute's own guide)."""
    unit = max((u for u in units if u in metrics), key=lambda u: metrics[u])
    name, busy = units[unit], metrics[unit]
    return f"{name} {busy:.0f}%" if busy >= 60 else f"latency (busiest: {name} {busy:.0f}%)"
