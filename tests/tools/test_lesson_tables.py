#!/usr/bin/env python3
"""The lessons' tables that are transcribed from a results file agree with it, cell by cell.

Usage: test_lesson_tables.py [ROOT]   (ROOT: the repository to check, by default this one)

Every number in a lesson comes from a committed file. A table that a chapter's plot script
prints whole is generated into the lesson and compared with that output (tools/lesson_tables.py,
the test lesson-tables-generated). For each other table of chapters/*/README.md and slides/*.md
that is taken from a CSV under chapters/*/results/ (some of its rows or columns, or figures
worked out from it), TABLES below says where the table is (a line above it, usually its link to the CSV, and which table
after that line), which file it comes from, how a row of the table finds its row of the CSV (the
key), and what each checked column holds: a CSV column or a simple formula on the CSV, rounded as
the lesson rounds it. A cell with several numbers ("0.295 (x633)") lists one value per number,
in order; a "-" stands for a value the CSV leaves empty.

Rounding: DIGITS decimals (an int), N significant digits ("3g"), or None: as many decimals as the
lesson writes in that cell. A cell agrees when its number is the CSV value rounded that way (a
tie may go either way): |lesson - csv| <= half a unit of the last digit.

Prints one line per table (file, table, cells that agree) and one per mismatch (file:line, row,
column, lesson value, CSV value); exits 1 on any mismatch, or on a table, row or CSV row that
cannot be found.
"""
import csv
import math
import pathlib
import re
import sys
from dataclasses import dataclass
from typing import Callable

ROOT = pathlib.Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2]

# --- the sources ------------------------------------------------------------------------------


class Source:
    """A results file as rows of {column: text or number}; find() picks exactly one row."""

    def __init__(self, path, rows):
        self.path, self.rows = path, rows

    def find(self, **match):
        def fits(row):
            return all(want(row.get(k)) if callable(want) else str(row.get(k)) == str(want)
                       for k, want in match.items())
        got = [r for r in self.rows if fits(r)]
        if len(got) != 1:
            shown = ", ".join(f"{k}={'<test>' if callable(v) else v}" for k, v in match.items())
            raise LookupError(f"{len(got)} rows of {self.path} with {shown}")
        return got[0]

    def num(self, column, **match):
        value = self.find(**match)[column]
        if isinstance(value, float):
            return value
        return None if value in ("", None) else float(value)


def read_csv(path):
    with open(ROOT / path, newline="") as f:
        return Source(path, list(csv.DictReader(f)))


def kernel_name(name):
    """A CUDA kernel's name without its arguments; an OpenACC region of chapter 05 (GCC names it
    after its function) as "pass N" (the Nth lambda of the stage's run) or "time step region N"."""
    instance = re.search(r"acc_for_each_cell.*\(instance (\d+)\)", name)
    if instance:
        return f"pass {instance.group(1)}"
    region = re.search(r"acc_time_step.*_omp_fn.(\d+)", name)
    if region:
        return f"time step region {int(region.group(1)) + 1}"
    return name.split("(")[0].split("::")[-1]


def read_ncu(path):
    """An Nsight Compute CSV as one row per kernel launch: its ID, short kernel name, metrics (numbers)
    and the labels of the "# key value, key value" line the bench script wrote before it (if any)."""
    text = (ROOT / path).read_text()
    rows, labels, header = {}, {}, None
    for line in text.splitlines():
        if line.startswith("# "):
            labels = dict(part.rsplit(" ", 1) for part in line[2:].strip().split(", ") if " " in part)
            labels["profile"] = line[2:].strip()
        elif line.startswith('"ID"'):
            header = next(csv.reader([line]))
        elif line.startswith('"') and header:
            r = dict(zip(header, next(csv.reader([line]))))
            key = (labels.get("profile"), r["ID"])
            row = rows.setdefault(key, {**labels, "ID": r["ID"], "kernel": kernel_name(r["Kernel Name"])})
            try:
                row[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
            except ValueError:
                row[r["Metric Name"]] = r["Metric Value"]
    return Source(path, list(rows.values()))


def read_mpi(path):
    """chapter 03's h200_mpi.txt: "--bind-to B, P ranks:" then the run's line, "...: T s, ..."."""
    rows, bind = [], None
    for line in (ROOT / path).read_text().splitlines():
        m = re.match(r"--bind-to (\w+), (\d+) ranks:", line)
        if m:
            bind = m.groups()
        elif bind and line.startswith("nccl over MPI"):
            rows.append({"bind": bind[0], "ranks": bind[1], "time_s": float(re.search(r": ([\d.]+) s,", line)[1])})
            bind = None
    return Source(path, rows)


_loaded = {}


def load(path, reader=read_csv):
    if path not in _loaded:
        _loaded[path] = reader(path)
    return _loaded[path]


# --- the mapping --------------------------------------------------------------------------------


@dataclass
class Col:
    header: str                 # the table's column ("name#2" for the second column of that name)
    value: Callable             # (key fields, source) -> number, None ("-"), a list (one per number of the
    #                             cell), or a text the cell must equal
    digits: object = None       # decimals (int), significant digits ("3g"), or None: the lesson's own decimals


@dataclass
class Table:
    lesson: str                 # the lesson file, from the repository root
    name: str                   # what the report calls it
    after: str                  # text of a line above the table (its link to the CSV, its caption)
    source: str                 # the results file it is transcribed from
    key: Callable               # {header: cell} -> key fields for the value functions; None: a quoted row
    cols: list
    nth: int = 0                # which table after that line
    reader: Callable = read_csv
    transposed: bool = False    # the CSV's rows are the table's columns


def clean(text):
    return text.replace("**", "").replace("`", "").strip()


def first_word(field_name="stage", column=None):
    """The key is the first word of the key cell: "lib (16 threads)" -> {field_name: "lib"}."""
    def key(row):
        cell = clean(row[column] if column else next(iter(row.values())))
        return {field_name: cell.split()[0]}
    return key


def whole(field_name="stage", column=None):
    def key(row):
        return {field_name: clean(row[column] if column else next(iter(row.values())))}
    return key


def lookup(mapping, column=None):
    """The key cell's text, looked up in mapping (a value of None marks a quoted row)."""
    def key(row):
        cell = clean(row[column] if column else next(iter(row.values())))
        if cell not in mapping:
            raise KeyError(f"row {cell!r} is not in the mapping")
        return mapping[cell]
    return key


def csv_value(column, **match):
    """The CSV column of the row that the key fields (and match) select."""
    return lambda k, s: s.num(column, **{**k, **match})


H200X2 = "chapters/00-device/results/h200x2"
HEAT = "chapters/01-heat/results/h200"
HEAT_H100 = "chapters/01-heat/results/h100"  # the stages past the blog post, v6 redesigned
MATMUL = "chapters/02-matmul/results/h200_matmul.csv"
POISSON = "chapters/03-poisson/results/h200"
PM = "chapters/04-particle-mesh/results/h200"
FOUR = "chapters/05-four-steps/results/h200_four_steps.csv"


# chapter 00: device_info's properties (device 0), and the slides' picks of the bandwidths and ceilings
def prop(name, scale=1.0):
    return lambda s: float(s.find(device="0", property=name)["value"]) * scale


PROPERTIES = {  # the lesson's row -> the H200 cell's numbers, in order
    "compute capability": [prop("compute capability")],
    "multiprocessors x FP32 cores each": [prop("multiprocessors"), prop("FP32 cores per multiprocessor"), prop("FP32 cores")],
    "max SM clock": [prop("max SM clock")],
    "memory clock, bus width": [prop("memory clock"), prop("memory bus width")],
    "theoretical memory bandwidth (2 x clock x bus)": [prop("theoretical memory bandwidth")],
    "global memory": [prop("global memory")],
    "L2 cache": [prop("L2 cache", 1 / 1024)],  # KiB -> MiB
    "shared memory per block (default / opt-in)": [prop("shared memory per block", 1 / 1024),
                                                   prop("shared memory per block (opt-in)", 1 / 1024)],
    "registers per block": [prop("registers per block")],
    "copy engines": [prop("copy engines")],
    "ECC": [],  # "enabled": no number
    "theoretical FP32 FMA peak (2 x cores x clock)": [prop("theoretical FP32 FMA peak", 1e-3)],  # TFLOP/s
    # the slides' shorter rows
    "SMs x FP32 cores": [prop("multiprocessors"), prop("FP32 cores per multiprocessor")],
    "clock": [prop("max SM clock")],
    "bus": [prop("memory bus width")],
    "memory bandwidth (theoretical)": [prop("theoretical memory bandwidth")],
    "L2": [prop("L2 cache", 1 / 1024)],
    "FP32 peak (theoretical)": [prop("theoretical FP32 FMA peak", 1e-3)],
}


def properties(k, s):
    return [f(s) for f in PROPERTIES[k["property"]]]


def bandwidth_at(size):
    return lambda k, s: s.num("gb_per_s", kind=k["kind"], bytes=size)


# chapter 01: the columns taken from the tours, the sweeps of variants, the 128^3 profile and v8's runs
def csv_text(column):
    return lambda k, s: s.find(**k)[column]


HEAT_UPDATES = 510 ** 3  # interior cells of the 512^3 problem


def busiest(row, units):
    """The busiest unit's % (the number in the "limiter" cells, "L2 80%" or "latency (busiest: L2 17%)")."""
    return max(row[u] for u in units if u in row)


def heat_profile(s, stage):
    """Stage's launches in a profile of chapters/01-heat/bench_heat.sh's loop: the .sum metrics summed, the
    others averaged, with the number of launches and of steps they ran."""
    rows = [r for r in s.rows if r["stage"] == stage]
    steps = int(rows[0]["steps"])
    total = {m: sum(r[m] for r in rows) for m in rows[0] if m.endswith(".sum")}
    mean = {m: sum(r[m] for r in rows) / len(rows) for m in rows[0] if isinstance(rows[0][m], float) and m not in total}
    return {**mean, **total, "launches": len(rows), "steps": steps}


def heat_metric(f, updates_per_step=HEAT_UPDATES):
    """A value of the profile of stage k["stage"], per update over the profiled steps."""
    def value(k, s):
        profile = heat_profile(s, k["stage"])
        return f(profile, updates_per_step * profile["steps"])
    return value


HEAT_128_UPDATES = 126 ** 3  # interior cells of the 128^3 problem


def heat128_metric(f):
    """A value of v8's profile (the same loop at 128^3)."""
    return heat_metric(f, HEAT_128_UPDATES)


def on_chip_time(stage):
    """s per run of a stage at the key's size ("128^3", or "160^3 (v8 runs v5)")."""
    def value(k, s):
        n = k["size"].split("^")[0]
        return s.num("time_s", stage=stage, problem=lambda p: p.startswith(f"{n} x {n} x {n} cells"))
    return value


def alt_time(k, s):
    return [s.num("time_s", stage=stage) for stage in k["stages"]]


def alt_vs_v4(k, s):
    return [s.num("time_s", stage="v4") / s.num("time_s", stage=stage) for stage in k["stages"]]


# chapter 02: the tables of chosen rows and columns, and the Nsight Compute table
def square(n):
    return {"m": str(n), "n": str(n), "k": str(n)}


def mm(column, n=None, **match):
    """A column of matmul_bench's CSV for the key's type, at N = n (or the key's N)."""
    def value(k, s):
        size = n or k["N"]
        return s.num(column, **{"type": k["type"], **square(size), **match})
    return value


def mm_pct(of, n=None):
    """% of the FP64 FMA rate, the FP64 tensor peak (both noted in every row) or cuBLAS at that N."""
    def value(k, s):
        size = n or k["N"]
        got = s.num("device_gflops", type=k["type"], **square(size))
        if got is None:
            return None
        if of == "cublas":
            return 100 * got / s.num("device_gflops", type="gpulib", **square(size))
        return 100 * got / float(s.rows[0][of])
    return value


def with_threads(column, n):
    """lib's host cell also names its threads: "588 (16 threads)"."""
    def value(k, s):
        got = s.num(column, type=k["type"], **square(n))
        return [got, s.num("cpu_threads", type="lib", **square(n))] if k["type"] == "lib" else got
    return value


def peak_row(k, s):
    """The K40c table's last two rows are the run's peaks (a key of {"peak": column})."""
    return float(s.rows[0][k["peak"]])


def k40c(normal, peak=None):
    def value(k, s):
        if "peak" in k:
            return peak(k, s) if peak else None
        return normal(k, s)
    return value


def shape(k):
    m, n, kk = k["shape"].split("x")
    return {"m": m, "n": n, "k": kk}


MATMUL_H100 = "chapters/02-matmul/results/h100_matmul.csv"  # gpu8 and gpu9, past the course


def mm_shape(k):
    """ "1024^3" or "1000 x 3000 x 500" -> the CSV's m, n, k."""
    cell = k["shape"].replace(" ", "")
    return square(cell[:-2]) if cell.endswith("^3") else shape({"shape": cell})


def mm_h100(column, t, scale=1.0):
    return lambda k, s: s.num(column, type=t, **mm_shape(k)) * scale


MATMUL_H100_PINNED = "chapters/02-matmul/results/h100_matmul_pinned.csv"  # the same calls, arrays page-locked


def pinned_copy_bound_ms(k, s):
    """A and B at the pinned host-to-device rate, C at the device-to-host one, measured on one
    matrix of N^2 doubles in the same run."""
    n = int(k["shape"][:-2])
    rates = load("chapters/02-matmul/results/h100_matmul_bandwidth.csv")
    bytes_ = n * n * 8
    h2d = rates.num("gb_per_s", kind="H2D pinned", bytes=bytes_)
    d2h = rates.num("gb_per_s", kind="D2H pinned", bytes=bytes_)
    return (2 * bytes_ / h2d + bytes_ / d2h) / 1e6


def mm_h100_of_gpulib(t):
    """Device-only rate of type t as % of the gpulib row's, same shape, same run."""
    return lambda k, s: 100 * mm_h100("device_gflops", t)(k, s) / mm_h100("device_gflops", "gpulib")(k, s)


def mm_h100_text(column, t):
    return lambda k, s: s.find(type=t, **mm_shape(k))[column]


def mm_ncu(f):
    def value(k, s):
        return f(s.find(type=k["type"]))
    return value


MM_STALL = "smsp__average_warps_issue_stalled_"
MM_UNITS = ("sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
            "sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active",
            "l1tex__throughput.avg.pct_of_peak_sustained_elapsed", "lts__throughput.avg.pct_of_peak_sustained_elapsed",
            "dram__throughput.avg.pct_of_peak_sustained_elapsed")


def longest_wait(row):
    return max(v for name, v in row.items() if name.startswith(MM_STALL) and isinstance(v, float))


# chapter 03: the tables of chosen rows and columns
POISSON_H100 = "chapters/03-poisson/results/h100"  # gpu4 and gpu5, past the report


def poisson_rate(stage):
    return lambda k, s: s.num("gupdates_per_s", stage=stage, **k)


def scaling_eff(gpus):
    return lambda k, s: s.num("efficiency", stage=f"{k['stage']} x{gpus}")


# chapter 04: chapters/04-particle-mesh/plot_pm.py's tables (its ncu tables: the last of each stage's three launches)
def transfer(ms, x):
    return lambda k, s: [s.num(ms, stage=k["stage"]), s.num(x, stage=k["stage"])]


def pm_ncu(f):
    return lambda k, s: f(s.find(ID=str(k["ID"])))


def requests(r):
    return r["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]


def sectors_per_request(r):
    return r["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] / requests(r)


def strips(size):
    return lambda k, s: s.num("pct_copy", problem=lambda p: p.startswith(f"{size}^3 "), axis="x", strip=k["strip"])


FORCE_IDEAL = 512 ** 3 * 4  # bytes of one 512^3 float field: what forcex must read, and write
LESSONS_2010 = {  # chapter 04's closing table: its numbers, from the part2data, transfers, force and profile CSVs
    "unaligned": lambda s: [s.num("pct_copy", stage=st) for st in ("gpu1", "gpu2", "gpu3")],  # gpu1 at, (78%), (106%)
    "transfers": lambda s: [load(PM + "_transfers.csv").num("plain_x", stage="gpu3"),  # x1.5 from pageable memory
                            max(float(r["streamed_x"]) for r in load(PM + "_transfers.csv").rows),  # x10 at best
                            load(PM + "_transfers.csv").num("kernel_x", stage="gpu3")],  # x750 (2 significant digits)
    "uncoalesced": lambda s: [load(PM + "_ncu_force.csv", read_ncu).num("dram__bytes_read.sum", ID="2") / FORCE_IDEAL,
                              load(PM + "_force.csv").num("pct_copy", stage="gpu1", axis="x"),
                              512 * 512 * 4 / 2 ** 20],  # 17.8x the bytes, % of copy, planes 1 MiB apart
    "interchange": lambda s: [],
}


# chapter 05: the slides' tables and the lesson's tables of chosen rows
FOUR_CELLS = 2001 * 2001
FOUR_UNITS = ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
              "lts__throughput.avg.pct_of_peak_sustained_elapsed", "l1tex__throughput.avg.pct_of_peak_sustained_elapsed")


def four(column, side):
    """A column of the step's CPU, CUDA (gpu) or OpenACC (acc) stage (ref for the ref row)."""
    def value(k, s):
        stage = "ref" if k["step"] == "ref" else side + k["step"]
        if k["step"] == "ref" and side != "cpu":
            return None
        return s.num(column, stage=stage)
    return value


def four_gain(side):
    """The step's gain: the step before's time over this one's (none for ref and step 0)."""
    return lambda k, s: (None if k["step"] in ("ref", "0") else
                         s.num("time_s", stage=f"{side}{int(k['step']) - 1}") / s.num("time_s", stage=f"{side}{k['step']}"))


def four_profile(what):
    def value(k, s):
        ks = [r for r in s.rows if r.get("stage") == k["stage"]]
        total = lambda key: sum(r.get(key, 0) for r in ks)  # noqa: E731
        time = total("gpu__time_duration.sum")
        dram = total("dram__bytes_read.sum") + total("dram__bytes_write.sum")
        flops = (total("sm__sass_thread_inst_executed_op_dadd_pred_on.sum")
                 + total("sm__sass_thread_inst_executed_op_dmul_pred_on.sum")
                 + 2 * total("sm__sass_thread_inst_executed_op_dfma_pred_on.sum"))
        by_name = {}
        for r in ks:
            by_name.setdefault(r["kernel"], []).append(r)
        launches = max(by_name.values(), key=lambda rs: sum(r["gpu__time_duration.sum"] for r in rs))
        first = launches[0]
        return {"kernels": len(ks), "ms": time / 1e6, "dram": dram / FOUR_CELLS, "flops": flops / FOUR_CELLS,
                "intensity": flops / dram,
                "top": [*(int(n) for n in re.findall(r"\d+", first["kernel"]) if first["kernel"].startswith("pass")),
                        len(launches), 100 * sum(r["gpu__time_duration.sum"] for r in launches) / time,
                        first["launch__registers_per_thread"], first["sm__warps_active.avg.pct_of_peak_sustained_active"],
                        busiest(first, FOUR_UNITS)]}[what]
    return value


FOUR_NCU_COLS = [  # the profile table of chapter 05, as chapters/05-four-steps/plot_four_steps.py prints it
    Col("kernels per step", four_profile("kernels"), 0), Col("time per step (ms)", four_profile("ms"), 2),
    Col("DRAM B / cell update", four_profile("dram"), 0), Col("FP64 flop / cell update", four_profile("flops"), 0),
    Col("flop / DRAM byte", four_profile("intensity"), 2),
    Col("kernel with the most time: share, registers, warps active, limiter", four_profile("top"), 0)]


def step_key(row):
    """chapter 05's rows: "ref (1 core)", "0 adaptation", ... "4 align / tile"."""
    cell = clean(next(iter(row.values())))
    return {"step": cell.split()[0]}


GPU4 = {"2": "gpu4_2", "4": "gpu4", "4, at 32 registers": "gpu4_4x8", "8": "gpu4_8", "16": "gpu4_16"}

TABLES = [
    # --- chapter 00 ---------------------------------------------------------------------------
    Table("chapters/00-device/README.md", "properties", "[`results/h200x2_info.csv`]", H200X2 + "_info.csv",
          whole("property"), [Col("H200 (measured here)", properties, None)]),
    Table("slides/00-device.md", "K40c vs H200", "## K40c (2017) vs H200", H200X2 + "_info.csv",
          whole("property"), [Col("H200", properties, None)]),
    Table("slides/00-device.md", "1 GiB copies", "## What moving data costs (1 GiB copies)", H200X2 + "_bandwidth.csv",
          lookup({"device to device (read + write)": {"kind": "D2D"}, "GPU to GPU, NVLink": {"kind": "P2P 0->1"},
                  "host to device, pinned": {"kind": "H2D pinned"}, "host to device, pageable": {"kind": "H2D pageable"}}),
          [Col("GB/s", bandwidth_at(1 << 30), None)]),
    Table("slides/00-device.md", "arithmetic ceilings", "## Arithmetic ceilings", H200X2 + "_peak.csv",
          lookup({"FP32 FMA kernel": {"ceiling": "FP32 FMA kernel"}, "FP64 FMA kernel": {"ceiling": "FP64 FMA kernel"},
                  "cuBLAS SGEMM (no TF32)": {"ceiling": "cuBLAS SGEMM (FP32, no TF32)"},
                  "cuBLAS DGEMM (FP64 tensor cores)": {"ceiling": "cuBLAS DGEMM (FP64 tensor cores)"}}),
          [Col("TFLOP/s", lambda k, s: s.num("measured", **k) / 1000, 1),
           Col("% of theoretical", csv_value("pct_theoretical"), 1)]),

    # --- chapter 01 ---------------------------------------------------------------------------
    Table("chapters/01-heat/README.md", "the blog post's table, H200 column", "## The blog post's numbers beside ours",
          HEAT + "_128.csv", first_word(), [Col("**H200** (4158 GB/s measured copy)", csv_value("time_s"), 4)]),
    Table("chapters/01-heat/README.md", "v5 variants, % of copy",
          "[`results/h100_512_sweep.csv`](results/h100_512_sweep.csv), 512^3", HEAT_H100 + "_512_sweep.csv", whole("block"), [
              Col("v5 (float4, 1 row, 1 ahead)", csv_value("pct_copy", stage="v5"), 1),
              Col("one float per thread", csv_value("pct_copy", stage="v5_scalar"), 1),
              Col("2 rows", csv_value("pct_copy", stage="v5_rows2"), 1),
              Col("4 rows", csv_value("pct_copy", stage="v5_rows4"), 1),
              Col("2 ahead", csv_value("pct_copy", stage="v5_ahead2"), 1),
              Col("3 ahead", csv_value("pct_copy", stage="v5_ahead3"), 1)]),
    Table("chapters/01-heat/README.md", "v6 depths, x single-step bound",
          "[`results/h100_512_sweep.csv`](results/h100_512_sweep.csv), 500 steps", HEAT_H100 + "_512_sweep.csv",
          whole("block"), [Col(f"depth {d}" + (" (v6)" if d == 8 else ""),
                               lambda k, s, v=v: s.num("pct_copy", stage=v, block=k["block"]) / 100, 2)
                           for d, v in ((2, "v6_depth2"), (4, "v6_depth4"), (6, "v6_depth6"), (8, "v6"))]),
    Table("chapters/01-heat/README.md", "128^3 ways out of launch overhead",
          "[`results/h100_128_alternatives.csv`](results/h100_128_alternatives.csv), 5000 steps",
          HEAT_H100 + "_128_alternatives.csv",
          lookup({"v4, plain launches": {"stages": ["v4"]}, "v5, plain launches": {"stages": ["v5"]},
                  "v6 (8 steps per launch)": {"stages": ["v6"]},
                  "v6, 2 or 4 steps per launch": {"stages": ["v6_depth2", "v6_depth4"]},
                  "v4 replayed as a CUDA graph (v7)": {"stages": ["v7"]}, "v5 replayed as a graph": {"stages": ["v7_v5"]},
                  "v6 replayed as a graph": {"stages": ["v7_v6"]}}),
          [Col("s per 5000 steps", alt_time, 4), Col("vs v4", alt_vs_v4, 2)]),
    Table("chapters/01-heat/README.md", "v8: Nsight Compute at 128^3", "[`results/h100_ncu_128.csv`](results/h100_ncu_128.csv), the loop",
          "chapters/01-heat/results/h100_ncu_128.csv", first_word(), reader=read_ncu, cols=[
              Col("steps per launch", heat128_metric(lambda r, per: r["steps"] / r["launches"]), None),
              Col("DRAM read B/update", heat128_metric(lambda r, per: r["dram__bytes_read.sum"] / per), 2),
              Col("DRAM write B/update", heat128_metric(lambda r, per: r["dram__bytes_write.sum"] / per), 2),
              Col("L1 hit", heat128_metric(lambda r, per: r["l1tex__t_sector_hit_rate.pct"]), 0),
              Col("L2 hit", heat128_metric(lambda r, per: r["lts__t_sector_hit_rate.pct"]), 0),
              Col("warps active", heat128_metric(lambda r, per: r["sm__warps_active.avg.pct_of_peak_sustained_active"]), 0),
              Col("registers", heat128_metric(lambda r, per: r["launch__registers_per_thread"]), 0),
              Col("instructions per update", heat128_metric(lambda r, per: r["smsp__inst_executed.sum"] * 32 / per), 1)]),
    Table("chapters/01-heat/README.md", "v8: cells per thread and the barrier",
          "[`results/h100_128_v8_sweep.csv`](results/h100_128_v8_sweep.csv), 128^3", "chapters/01-heat/results/h100_128_v8_sweep.csv",
          first_word(), [Col("block", csv_text("block")),
                         Col("s per 5000 steps", csv_value("time_s"), 4),
                         Col("µs per step", lambda k, s: s.num("time_s", stage=k["stage"]) / 5000 * 1e6, 2)]),
    Table("chapters/01-heat/README.md", "v8 over sizes", "Over sizes ([`results/h100_on_chip_sizes.csv`](results/h100_on_chip_sizes.csv)",
          "chapters/01-heat/results/h100_on_chip_sizes.csv", first_word("size"), [
              Col("v4", on_chip_time("v4"), 4), Col("v7", on_chip_time("v7"), 4), Col("v8", on_chip_time("v8"), 4),
              Col("v8 µs per step", lambda k, s: on_chip_time("v8")(k, s) / 5000 * 1e6, 2),
              Col("v8 vs v4", lambda k, s: on_chip_time("v4")(k, s) / on_chip_time("v8")(k, s), 2)]),
    Table("slides/01-heat.md", "the blog post's table, H200 column", "## The blog post's table beside ours", HEAT + "_128.csv",
          first_word(), [Col("H200", csv_value("time_s"), 4)]),

    # --- chapter 02 ---------------------------------------------------------------------------
    Table("chapters/02-matmul/README.md", "from the K40c to the tensor cores", "### From the K40c to the tensor cores",
          MATMUL, lambda row: ({"peak": "fp64_fma_gflops"} if "FMA peak" in row["type"]
                               else {"peak": "fp64_tensor_peak_gflops"} if "tensor peak" in row["type"]
                               else first_word("type")(row)), [
              Col("H200 host to host", k40c(with_threads("host_gflops", 4096)), 0),
              Col("H200 device only", k40c(mm("device_gflops", 4096), peak_row), 0),
              Col("% of FP64 FMA", k40c(mm_pct("fp64_fma_gflops", 4096),
                                        lambda k, s: 100 * peak_row(k, s) / float(s.rows[0]["fp64_fma_gflops"])), 1),
              Col("% of cuBLAS", k40c(mm_pct("cublas", 4096)), 1)]),
    Table("chapters/02-matmul/README.md", "gpu8 on every shape", "The plan it kept is the last column", MATMUL_H100,
          whole("shape"), [Col("cuBLAS TFLOP/s", mm_h100("device_gflops", "gpulib", 1e-3), 1),
                           Col("gpu7 TFLOP/s", mm_h100("device_gflops", "gpu7", 1e-3), 1),
                           Col("gpu7 % of cuBLAS", mm_h100_of_gpulib("gpu7"), 0),
                           Col("gpu8 TFLOP/s", mm_h100("device_gflops", "gpu8", 1e-3), 1),
                           Col("gpu8 % of cuBLAS", mm_h100_of_gpulib("gpu8"), 0),
                           Col("gpu8's plan", mm_h100_text("plan", "gpu8"))]),
    Table("chapters/02-matmul/README.md", "host to host, gpu9", "Host to host, from the same run", MATMUL_H100,
          lambda row: {"shape": clean(row["N"]) + "^3"},
          [Col(t, mm_h100("host_ms", t), 1) for t in ("gpulib", "gpu7", "gpu8", "gpu9")] +
          [Col("gpu9 vs gpulib", lambda k, s: mm_h100("host_ms", "gpulib")(k, s) / mm_h100("host_ms", "gpu9")(k, s), 1)] +
          [Col(f"{t}, caller's arrays pinned", (lambda t: lambda k, s: mm_h100("host_ms", t)(k, load(MATMUL_H100_PINNED)))(t), 1)
           for t in ("gpulib", "gpu8", "gpu9")] +
          [Col("pinned-copy bound", pinned_copy_bound_ms, 1),
           Col("product alone (gpu8)", mm_h100("device_ms", "gpu8"), 1)]),
    Table("chapters/02-matmul/README.md", "Nsight Compute at N = 4096", "### What Nsight Compute sees (N = 4096)",
          "chapters/02-matmul/results/h200_matmul_ncu.csv", first_word("type"), reader=read_ncu, cols=[
              Col("ms", mm_ncu(lambda r: r["gpu__time_duration.sum"] / 1e6), 2),
              Col("GFLOP/s", mm_ncu(lambda r: 2 * int(r["n"]) ** 3 / (r["gpu__time_duration.sum"] / 1e9) / 1e9), 0),
              Col("DRAM GB", mm_ncu(lambda r: (r["dram__bytes_read.sum"] + r["dram__bytes_write.sum"]) / 1e9), 2),
              Col("L2 GB", mm_ncu(lambda r: r["lts__t_bytes.sum"] / 1e9), 1),
              Col("shared wavefronts (M)", mm_ncu(lambda r: r["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"] / 1e6), 0),
              Col("bank conflicts (M)", mm_ncu(lambda r: r["l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"] / 1e6), 1),
              Col("FP64 pipe", mm_ncu(lambda r: r[MM_UNITS[0]]), 0), Col("tensor pipe", mm_ncu(lambda r: r[MM_UNITS[1]]), 0),
              Col("warps active", mm_ncu(lambda r: r["sm__warps_active.avg.pct_of_peak_sustained_active"]), 0),
              Col("registers", mm_ncu(lambda r: r["launch__registers_per_thread"]), 0),
              Col("longest wait (cycles per instruction)", mm_ncu(longest_wait), 1),
              Col("limiter", mm_ncu(lambda r: busiest(r, MM_UNITS)), 0)]),
    Table("slides/02-matmul.md", "N = 4096", "## N = 4096, GFLOP/s", MATMUL, first_word("type"), [
        Col("H200 host to host", with_threads("host_gflops", 4096), 0), Col("H200 device only", mm("device_gflops", 4096), 0),
        Col("% of cuBLAS", mm_pct("cublas", 4096), 0)]),
    Table("slides/02-matmul.md", "gpu4 sweep", "## gpu4: sweep the magic number", MATMUL,
          lambda row: {"type": GPU4[clean(row["rows per thread"])]}, transposed=True,
          cols=[Col(f"N = {n}", mm("device_gflops", n), 0) for n in (1024, 4096)]),

    # --- chapter 03 ---------------------------------------------------------------------------
    Table("chapters/03-poisson/README.md", "gpu4 and gpu5 by size",
          "One run of `chapters/03-poisson/bench_poisson.sh build chapters/03-poisson/results h100`", POISSON_H100 + "_sizes.csv",
          whole("N"), [
              Col("gpu3", poisson_rate("gpu3"), 1), Col("gpu4", poisson_rate("gpu4"), 1),
              Col("gpu5", poisson_rate("gpu5"), 1),
              Col("gpu4 depth", lambda k, s: s.num("depth", stage="gpu4", **k), 0),
              Col("gpu5 depth", lambda k, s: s.num("depth", stage="gpu5", **k), 0),
              Col("copy (GB/s)", lambda k, s: float(s.find(stage="gpu4", **k)["copy ceiling"].split()[0]), 0),
              Col("gpu4 / single-iteration bound", lambda k, s: s.num("pct_copy", stage="gpu4", **k) / 100, 2),
              Col("gpu4 / gpu3", lambda k, s: poisson_rate("gpu4")(k, s) / poisson_rate("gpu3")(k, s), 2),
              Col("gpu5 / gpu3", lambda k, s: poisson_rate("gpu5")(k, s) / poisson_rate("gpu3")(k, s), 2)]),
    Table("chapters/03-poisson/README.md", "one process per GPU", "[`results/h200_mpi.txt`](results/h200_mpi.txt)",
          POISSON + "_mpi.txt", whole("ranks"), reader=read_mpi, cols=[
              Col("ranks", lambda k, s: float(k["ranks"]), 0),
              Col("--bind-to core (OpenMPI's default)", lambda k, s: s.num("time_s", bind="core", **k), 3),
              Col("--bind-to none", lambda k, s: s.num("time_s", bind="none", **k), 3),
              Col("single-process nccl, same split",
                  lambda k, s: load(POISSON + "_scaling.csv").num("time_s", stage=f"nccl x{k['ranks']}"), 3)]),
    Table("slides/03-poisson.md", "one GPU", "## One GPU", POISSON + "_sizes.csv", whole("N"), [
        Col("gpu2", csv_value("gupdates_per_s", stage="gpu2"), 1), Col("gpu3", csv_value("gupdates_per_s", stage="gpu3"), 1),
        Col("% of copy (gpu2)", csv_value("pct_copy", stage="gpu2"), None)]),
    Table("slides/03-poisson.md", "parallel efficiency", "## Several GPUs: N = 16384", POISSON + "_scaling.csv",
          first_word(), [Col("2 GPUs", scaling_eff(2), 1), Col("4 GPUs", scaling_eff(4), 1)]),

    # --- chapter 04 ---------------------------------------------------------------------------
    Table("chapters/04-particle-mesh/README.md", "part2data", "### The H200 (`results/h200_part2data.csv`",
          PM + "_part2data.csv", first_word(), [
              Col("time (ms)", csv_value("time_ms"), None), Col("Gparticles/s", csv_value("gparticles_per_s"), None),
              Col("GB/s at 16 B", csv_value("gb_per_s"), 0), Col("% of copy", csv_value("pct_copy"), 1),
              Col("vs cpu", csv_value("speedup_cpu"), None)]),
    Table("chapters/04-particle-mesh/README.md", "Nsight Compute, part2data", "`results/h200_ncu_part2data.csv`",
          PM + "_ncu_part2data.csv", lookup({"gpu1": {"ID": 2}, "gpu2": {"ID": 5}, "gpu3": {"ID": 8}}), reader=read_ncu, cols=[
              Col("time (µs)", pm_ncu(lambda r: r["gpu__time_duration.sum"] / 1e3), 0),
              Col("load requests", pm_ncu(lambda r: requests(r) / 1e6), 2),
              Col("sectors per request", pm_ncu(sectors_per_request), 1),
              Col("L1 hit", pm_ncu(lambda r: r["l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"]), None),
              Col("sectors read from L2", pm_ncu(lambda r: r["lts__t_sectors_srcunit_tex_op_read.sum"] / 1e6), 1),
              Col("DRAM read", pm_ncu(lambda r: r["dram__bytes_read.sum"] / 1e6), 0),
              Col("DRAM write", pm_ncu(lambda r: r["dram__bytes_write.sum"] / 1e6), 0)]),
    Table("chapters/04-particle-mesh/README.md", "the cost of transfers", "`results/h200_transfers.csv`, 2^26 particles",
          PM + "_transfers.csv", first_word(), [
              Col("sequential", csv_value("sequential_ms"), None), Col("kernel only", transfer("kernel_ms", "kernel_x"), None),
              Col("with transfers", transfer("plain_ms", "plain_x"), None),
              Col("pinned", transfer("pinned_ms", "pinned_x"), None),
              Col("pinned + streams", transfer("streamed_ms", "streamed_x"), None),
              Col("still possible (plain)", csv_value("possible_plain"), None),
              Col("still possible (streams)", csv_value("possible_streamed"), None)]),
    Table("chapters/04-particle-mesh/README.md", "pieces", "(`results/h200_pieces.csv`, gpu3, 4 streams)", PM + "_pieces.csv",
          lambda row: {"streams": clean(row["pieces"]) + " pieces over 4 streams"}, transposed=True,
          cols=[Col("ms", csv_value("streamed_ms"), 2)]),
    Table("chapters/04-particle-mesh/README.md", "forces", "### The H200 (`results/h200_force.csv`, 512^3)", PM + "_force.csv",
          lambda row: {"stage": clean(row["stage"]), "axis": clean(row["axis"])}, [
              Col("strip", lambda k, s: s.num("strip", **k), 0), Col("time (ms)", csv_value("time_ms"), None),
              Col("GCells/s", csv_value("gcells_per_s"), None), Col("GB/s", csv_value("gb_per_s"), 0),
              Col("% of copy", csv_value("pct_copy"), 1), Col("vs cpu", csv_value("speedup_cpu"), None)]),
    Table("chapters/04-particle-mesh/README.md", "Nsight Compute, forces", "`results/h200_ncu_force.csv`",
          PM + "_ncu_force.csv", lambda row: {"ID": {("gpu1", "x"): 2, ("gpu_k", "x"): 5, ("gpu2", "x"): 8, ("gpu_k", "y"): 11,
                                                      ("gpu2", "y"): 14, ("gpu_k", "z"): 17}[
              (clean(row["kernel"]).split()[0], clean(row["axis"]))]}, reader=read_ncu, cols=[
              Col("time (µs)", pm_ncu(lambda r: r["gpu__time_duration.sum"] / 1e3), 0),
              Col("sectors per request", pm_ncu(sectors_per_request), 1),
              Col("L1 hit", pm_ncu(lambda r: r["l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"]), 1),
              Col("sectors read from L2", pm_ncu(lambda r: r["lts__t_sectors_srcunit_tex_op_read.sum"] / 1e6), 1),
              Col("DRAM read", pm_ncu(lambda r: r["dram__bytes_read.sum"] / 1e6), 0),
              Col("DRAM write", pm_ncu(lambda r: r["dram__bytes_write.sum"] / 1e6), 0)]),
    Table("chapters/04-particle-mesh/README.md", "strip length", "### Strip length (`results/h200_strips.csv`)",
          PM + "_strips.csv", whole("strip"), transposed=True, cols=[
              Col("512^3, x: % of copy", strips(512), 1), Col("256^3, x", strips(256), 1),
              Col("1024^3, x", strips(1024), 1)]),
    Table("chapters/04-particle-mesh/README.md", "what the 2010 lessons still teach", "## What the 2010 lessons still teach",
          PM + "_part2data.csv", lookup({
              "unaligned loads waste bandwidth; stage them through shared memory": {"lesson": "unaligned"},
              "the transfers decide the speed-up, not the kernel": {"lesson": "transfers"},
              "uncoalesced access (threads along the slowest axis) is a disaster": {"lesson": "uncoalesced"},
              "loop interchange + strip mining": {"lesson": "interchange"}}),
          [Col("on the H200", lambda k, s: LESSONS_2010[k["lesson"]](s), [None, None, "2g", None])]),
    Table("slides/04-particle-mesh.md", "part2data", "## part2data: unaligned loads", PM + "_part2data.csv", first_word(),
          [Col("% of copy (2^26)", csv_value("pct_copy"), 1)]),
    Table("slides/04-particle-mesh.md", "Nsight Compute, part2data", "## Does the L1 rescue the unaligned loads?",
          PM + "_ncu_part2data.csv", lookup({"gpu1": {"ID": 2}, "gpu2": {"ID": 5}, "gpu3": {"ID": 8}}), reader=read_ncu, cols=[
              Col("sectors / request", pm_ncu(sectors_per_request), None),
              Col("L1 hit", pm_ncu(lambda r: r["l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"]), 0),
              Col("DRAM read", pm_ncu(lambda r: r["dram__bytes_read.sum"] / 1e6), 0)]),
    Table("slides/04-particle-mesh.md", "the cost of transfers (gpu3)", "## The cost of transfers (gpu3, 2^26 particles)",
          PM + "_transfers.csv", lookup({
              "sequential": {"ms": "sequential_ms", "x": None}, "kernel only": {"ms": "kernel_ms", "x": "kernel_x"},
              "pageable, alloc + copies + free": {"ms": "plain_ms", "x": "plain_x"},
              "pinned": {"ms": "pinned_ms", "x": "pinned_x"},
              "pinned, 16 pieces on 4 streams": {"ms": "streamed_ms", "x": "streamed_x"}}),
          [Col("ms", lambda k, s: s.num(k["ms"], stage="gpu3"), None),
           Col("vs 1 core", lambda k, s: s.num(k["x"], stage="gpu3") if k["x"] else 1.0, None)]),

    # --- chapter 05 ---------------------------------------------------------------------------
    Table("chapters/05-four-steps/README.md", "the numbers", "## The numbers (`results/h200_four_steps.csv`)", FOUR, step_key, [
        Col("CPU s / 100 steps", four("s_per_100_steps", "cpu"), None), Col("CPU Mcups", four("mcups", "cpu"), None),
        Col("CPU vs ref", four("speedup_ref", "cpu"), 1),
        Col("GPU s / 100 steps", four("s_per_100_steps", "gpu"), "3g"), Col("GPU Mcups", four("mcups", "gpu"), 0),
        Col("GPU vs ref", four("speedup_ref", "gpu"), 0)]),
    Table("chapters/05-four-steps/README.md", "the gain of each step", "The gain of each step", FOUR, step_key, [
        Col("H200", four_gain("gpu"), 2), Col("our 16 cores", four_gain("cpu"), 2)]),
    Table("chapters/05-four-steps/README.md", "Nsight Compute, OpenACC and CUDA", "`results/h100_four_steps_ncu.csv`;",
          "chapters/05-four-steps/results/h100_four_steps_ncu.csv", first_word(), reader=read_ncu, cols=FOUR_NCU_COLS),
    Table("slides/05-four-steps.md", "the numbers", "![cell updates per second by step]", FOUR, step_key, [
        Col("16 cores", four("s_per_100_steps", "cpu"), None), Col("vs ref", four("speedup_ref", "cpu"), 1),
        Col("H200", four("s_per_100_steps", "gpu"), "3g"), Col("Mcups", four("mcups", "gpu"), 0),
        Col("vs ref#2", four("speedup_ref", "gpu"), 0)]),
    Table("slides/05-four-steps.md", "the gain of each step", "| step | ONERA K20Xm | H200 |", FOUR, step_key, [
        Col("H200", four_gain("gpu"), 2), Col("our 16 cores", four_gain("cpu"), 2)]),
]

# --- reading the lessons ------------------------------------------------------------------------

SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
# a number, not the digits of a name ("gpu4", "v5_rows2") but after an "x" ("x633", "128x4x1")
NUMBER = re.compile(r"(?<![A-Za-wyz_\d.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")


def cells(line):
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|"):
        text = text[:-1]
    return [c.strip() for c in text.split("|")]


def find_table(lines, after, nth):
    """(line index of the header, rows of cells, line index of each body row) of the nth table
    after the first line that contains `after`."""
    start = next((i for i, line in enumerate(lines) if after in line), None)
    if start is None:
        raise LookupError(f"no line with {after!r}")
    seen = -1
    i = start
    while i + 1 < len(lines):
        if lines[i].strip().startswith("|") and SEPARATOR.match(lines[i + 1].strip()):
            seen += 1
            end = i + 2
            while end < len(lines) and lines[end].strip().startswith("|"):
                end += 1
            if seen == nth:
                return i, [cells(lines[j]) for j in [i] + list(range(i + 2, end))], [i] + list(range(i + 2, end))
            i = end
        else:
            i += 1
    raise LookupError(f"no table {nth} after the line with {after!r}")


def unique(headers):
    out = []
    for h in headers:
        name, n = clean(h), 2
        while name in out:
            name = f"{clean(h)}#{n}"
            n += 1
        out.append(name)
    return out


def decimals(text):
    return len(text.split(".")[1]) if "." in text else 0


def agrees(text, value, digits):
    lesson = float(text.replace(",", ""))
    if digits is None:
        d = decimals(text)
    elif isinstance(digits, str):  # significant digits
        d = int(digits[:-1]) - 1 - (math.floor(math.log10(abs(value))) if value else 0)
    else:
        d = digits
    return abs(lesson - value) <= 0.5 * 10.0 ** -d * (1 + 1e-9) + 1e-12, d


def shown(value, d):
    return f"{value:.{max(d, 0) + 2}f}".rstrip("0").rstrip(".") if d is not None else repr(value)


failures = []
_lessons = {}


def lesson_lines(path):
    if path not in _lessons:
        _lessons[path] = (ROOT / path).read_text().splitlines()
    return _lessons[path]


def report(ok, line, counted=True):
    print(("ok   " if ok else "FAIL ") + line)
    if not ok and counted:
        failures.append(line)


def check(table):
    where = f"{table.lesson}: {table.name}"
    try:
        lines = lesson_lines(table.lesson)
        at, grid, numbers = find_table(lines, table.after, table.nth)
        source = load(table.source, table.reader)
    except (LookupError, OSError) as e:
        report(False, f"{where}: {e}")
        return
    if table.transposed:  # the table's columns become rows: the first row holds the keys
        width = max(len(r) for r in grid)
        grid = [[r[c] if c < len(r) else "" for r in grid] for c in range(width)]
        numbers = [at] * len(grid)
    headers = unique(grid[0])
    missing = [c.header for c in table.cols if clean(c.header) not in headers]
    if missing:
        report(False, f"{table.lesson}:{at + 1}: {table.name}: no column {', '.join(map(repr, missing))} in {headers}")
        return
    good = bad = 0
    for row_cells, number in zip(grid[1:], numbers[1:]):
        row = dict(zip(headers, row_cells + [""] * (len(headers) - len(row_cells))))
        label = clean(row_cells[0])
        place = f"{table.lesson}:{number + 1}"
        try:
            fields = table.key(row)
        except (KeyError, LookupError) as e:
            report(False, f"{place}: {table.name}: row {label!r}: {e}")
            bad += 1
            continue
        if fields is None:
            continue  # a quoted row
        for col in table.cols:
            cell = clean(row[clean(col.header)])
            try:
                expected = col.value(fields, source)
            except (KeyError, LookupError, ValueError, TypeError, ZeroDivisionError) as e:
                report(False, f"{place}: {table.name}: row {label!r}, column {col.header!r}: {e}")
                bad += 1
                continue
            if isinstance(expected, str):  # a text the lesson copies as it is
                if cell == expected:
                    good += 1
                else:
                    report(False, f"{place}: {table.name}: row {label!r}, column {col.header!r}: lesson {cell!r}, "
                                  f"CSV {expected!r}")
                    bad += 1
                continue
            expected = list(expected) if isinstance(expected, list) else [expected]
            found = NUMBER.findall(cell)
            if all(v is None for v in expected) and expected:
                if cell in ("-", "", "–"):
                    good += 1
                else:
                    report(False, f"{place}: {table.name}: row {label!r}, column {col.header!r}: lesson {cell!r}, CSV empty")
                    bad += 1
                continue
            if len(found) != len(expected):
                report(False, f"{place}: {table.name}: row {label!r}, column {col.header!r}: lesson {cell!r} has "
                              f"{len(found)} numbers, CSV gives {len(expected)}: {expected}")
                bad += 1
                continue
            digit_specs = col.digits if isinstance(col.digits, list) else [col.digits] * len(expected)
            for text, value, digits in zip(found, expected, digit_specs):
                held, d = agrees(text, value, digits)
                if held:
                    good += 1
                else:
                    rounded = f"{round(value, d) if d >= 0 else value:.{max(d, 0)}f}"
                    report(False, f"{place}: {table.name}: row {label!r}, column {col.header!r}: lesson {text}, "
                                  f"CSV {shown(value, d)} (rounded to {d} decimals: {rounded})")
                    bad += 1
    if good == 0 and bad == 0:
        report(False, f"{table.lesson}:{at + 1}: {table.name} <- {table.source}: no cell checked")
    else:
        report(bad == 0, f"{table.lesson}:{at + 1}: {table.name} <- {table.source}: {good} cells OK"
                         + (f", {bad} wrong" if bad else ""), counted=False)


if __name__ == "__main__":
    for t in TABLES:
        check(t)
    print(f"{len(TABLES)} tables checked, {len(failures)} problems")
    sys.exit(1 if failures else 0)
