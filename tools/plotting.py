"""Helpers shared by the chapters' plot scripts: a program's CSV, matplotlib without a display,
log-log axes, and saving a figure; and the command line of every Python tool in tools/: usage
errors and bad input as one line on stderr, exit 2, never a traceback."""
import argparse
import csv
import os
import sys


class InputError(Exception):
    """Bad input, said in one line by run(): a file that is not what the tool reads."""


class Parser(argparse.ArgumentParser):
    """argparse whose usage error is one line, PROG: error: MESSAGE, exit 2 (argparse's own
    prints the whole usage first). Given DOC, --help prints DOC, the tool's own usage text."""

    def __init__(self, doc=None, **kwargs):
        self.doc = doc
        super().__init__(**kwargs)

    def format_help(self):
        return self.doc.strip() + "\n" if self.doc else super().format_help()

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def folder(value):
    """An --out folder: not empty (an unset variable?), not a file."""
    if not value.strip():
        raise argparse.ArgumentTypeError("the folder is empty (an unset variable?)")
    if os.path.exists(value) and not os.path.isdir(value):
        raise argparse.ArgumentTypeError(f"{value} is a file, not a folder")
    return value


def png(value):
    """A picture to write: a name ending in .png, not a folder."""
    if not value.endswith(".png") or os.path.isdir(value):
        raise argparse.ArgumentTypeError(f"{value!r} is not a file name ending in .png")
    return value


def prefix_parser(doc) -> Parser:
    """The command line of a chapter's plot script that reads PREFIX_*.csv: PREFIX [--markdown]
    [--out DIR]. The pictures go to DIR (default plots/, which git ignores), so that running a
    lesson's command on committed results does not overwrite the committed pictures."""
    parser = Parser(doc)
    parser.add_argument("prefix", metavar="PREFIX")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--out", metavar="DIR", default="plots", type=folder)
    return parser


def pictures(args) -> str:
    """The prefix of the pictures' names: DIR/NAME for PREFIX .../NAME (DIR made if need be)."""
    os.makedirs(args.out, exist_ok=True)
    return os.path.join(args.out, os.path.basename(args.prefix))


def run_prefix_tool(doc, markdown, plots):
    """The whole command line of a chapter's plot script that reads PREFIX_*.csv: PREFIX --markdown
    prints the lesson's tables, markdown(PREFIX); PREFIX alone draws the pictures,
    plots(PREFIX, pictures' prefix)."""
    def main(argv):
        args = prefix_parser(doc).parse_args(argv)
        if args.markdown:
            markdown(args.prefix)
        else:
            plots(args.prefix, pictures(args))
        return 0
    run(main)


def run(main):
    """sys.exit(main(argv)), with bad input (a missing, unreadable or binary file, a CSV without
    the columns the tool reads, an output it cannot write) said in one line, TOOL: MESSAGE, exit 2."""
    try:
        sys.exit(main(sys.argv[1:]))
    except InputError as e:
        message = str(e)
    except OSError as e:
        message = f"{e.filename}: {e.strerror}" if e.filename else str(e)
    except UnicodeDecodeError:
        message = "an input is not text (a binary file?)"
    except csv.Error as e:
        message = f"an input is not a CSV file ({e})"
    except KeyError as e:
        message = f"an input has no column (or field) {e}: is it the file this tool reads?"
    except (IndexError, StopIteration, ValueError, ZeroDivisionError) as e:
        message = f"an input is not the file this tool reads ({type(e).__name__}: {e})"
    print(f"{os.path.basename(sys.argv[0])}: " + " ".join(message.split()), file=sys.stderr)
    sys.exit(2)


def read_lines(path):
    """A text file's lines; a binary file is an InputError that names it."""
    try:
        with open(path) as f:
            return f.read().splitlines()
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file (a binary file?)") from None


def load(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a CSV file (not text: a binary file?)") from None
    except csv.Error as e:
        raise InputError(f"{path}: not a CSV file ({e})") from None
    if not rows:
        raise InputError(f"{path}: no rows")
    return rows


def copy_gbps(row):
    """The copy ceiling a program notes in every row ("4134 GB/s device-to-device ..."), in GB/s."""
    return float(row["copy ceiling"].split()[0])


def pyplot():
    try:
        import matplotlib
    except ImportError:
        raise InputError("matplotlib is missing: activate the project's venv first"
                         " (source .venv/bin/activate; tools/install_deps.sh makes it)") from None
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
    "# stage v6, steps 24" (name "v6", labels {"stage": "v6", "steps": "24"}) before the CSV lines
    that ncu printed for that run. Over several launches, a metric that is a sum (its name ends
    in .sum) is their total and any other (a rate, a percentage, registers) their mean; labels
    gains "launches", how many there were."""
    profiles, name, header = {}, None, None
    for line in read_lines(path):
        if line.startswith("# "):
            labels = dict(part.rsplit(" ", 1) for part in line[2:].strip().split(", "))
            name = next(iter(labels.values()))
            profiles[name] = (labels, {})
        elif line.startswith('"ID"'):
            header = next(csv.reader([line]))
        elif line.startswith('"') and name:
            row = dict(zip(header, next(csv.reader([line]))))
            profiles[name][1].setdefault(row["Metric Name"], []).append(float(row["Metric Value"].replace(",", "")))
    for labels, metrics in profiles.values():
        labels["launches"] = str(max((len(v) for v in metrics.values()), default=0))
        for metric, values in metrics.items():
            metrics[metric] = sum(values) if metric.endswith(".sum") else sum(values) / len(values)
    return profiles


def busiest(metrics, units):
    """The busiest of `units` ({metric: what it measures}), or latency when none is past 60%
    (Nsight Compute's own guide)."""
    unit = max((u for u in units if u in metrics), key=lambda u: metrics[u])
    name, busy = units[unit], metrics[unit]
    return f"{name} {busy:.0f}%" if busy >= 60 else f"latency (busiest: {name} {busy:.0f}%)"
