#!/usr/bin/env python3
"""Every Python tool of tools/ (not grade.py and the grader's modules, tested elsewhere) answers
bad input with one line on stderr and exit 2, never a traceback: an unknown option, an extra
argument, an option without its value, a missing input, a binary (non-CSV) input, a CSV of other
columns, an output it cannot write, a --png that is not a .png file, nothing to do, matplotlib
missing (the venv not active); the prefix tools' pictures go to plots/, not beside the committed
results they read. --help prints to stdout and exits 0. make_exercises.py given
a file without --out must not regenerate exercises/, and render_slides.py --out '' must not
write into the repository's root.

Usage: test_python_tools_cli.py [TOOLS_DIR]
  TOOLS_DIR defaults to the repository's tools/; an older copy of tools/ (git archive HEAD
  tools) shows that the test can fail."""
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile

from expectations import ROOT, expect, finish

TOOLS = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "tools").resolve()
RESULTS = ROOT / "chapters"
PLOT_TOOLS = {p.name: p for p in RESULTS.glob("*/plot_*.py")}  # each chapter's plot script, beside its lesson

BINARY = b"\x89PNG\r\n\x1a\n\x00\xff\xfe" + random.Random(2).randbytes(2000)  # not UTF-8, not a CSV
OTHER_COLUMNS = "a,b\n1,2\n"  # a CSV, but not one the tool reads: its columns are missing
UNWRITABLE = "/proc/nope"  # not creatable even by root (tests may run as root: chmod won't do)


def run(tool, *args, cwd=None, env=None):
    """In a scratch folder by default: a tool that takes '' for the current folder writes there.
    matplotlib's font cache goes there too, not into the home folder (the grader's test, which
    may run beside this one, checks that nothing appears there)."""
    env = {**(env or os.environ), "MPLCONFIGDIR": str(SCRATCH / "matplotlib-cache")}
    return subprocess.run([sys.executable, str(tool), *map(str, args)], capture_output=True, text=True,
                          cwd=cwd or SCRATCH, timeout=120, env=env)


def refused(name, what, tool, *args, cwd=None, names="", env=None):
    """Exit 2, exactly one line on stderr, no traceback; the line NAMES what was wrong, where
    given (an ignored unknown option could otherwise pass by failing on something else)."""
    done = run(tool, *args, cwd=cwd, env=env)
    lines = done.stderr.strip().splitlines()
    expect(f"{name} {what}: exit 2 and one line on stderr" + (f" naming {names}" if names else "")
           + f" (exit {done.returncode}; {len(lines)} lines" + (f": {lines[-1][:150]!r})" if lines else ")"),
           done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr and names in done.stderr)
    return done


def helps(name, tool):
    done = run(tool, "--help")
    expect(f"{name} --help: exit 0, text on stdout (exit {done.returncode})",
           done.returncode == 0 and name in done.stdout and "Traceback" not in done.stderr)


def importable(module):
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


HAS_MATPLOTLIB, HAS_MARKDOWN = importable("matplotlib"), importable("markdown")


def copy_results(pairs, folder):
    """Copy chapters/<source> to <folder>/<name> for each (source, name)."""
    for source, name in pairs:
        shutil.copy(RESULTS / source, folder / name)


with tempfile.TemporaryDirectory() as scratch:
    scratch = SCRATCH = pathlib.Path(scratch)
    binary, other, nothing = scratch / "binary.csv", scratch / "other.csv", scratch / "none" / "x.csv"
    binary.write_bytes(BINARY)
    other.write_text(OTHER_COLUMNS)
    a_file = scratch / "a_file"
    a_file.write_text("a regular file, so nothing can be created under it\n")

    # Python without the venv's packages (the venv not active): packages of their names that are not there
    for package in ("matplotlib", "markdown"):
        (scratch / "no-venv" / package).mkdir(parents=True)
        (scratch / "no-venv" / package / "__init__.py").write_text(
            f"raise ModuleNotFoundError(\"No module named '{package}'\")\n")
    NO_VENV = {**os.environ, "PYTHONPATH": str(scratch / "no-venv")}

    def prefix_tool(name, inputs, first_png):
        """A tool that reads PREFIX_<input>.csv and writes DIR/PREFIX_<...>.png (--out DIR, by
        default plots/ in the current folder, never beside PREFIX: those are committed pictures)."""
        tool = PLOT_TOOLS[name]
        helps(name, tool)
        refused(name, "with an unknown option", tool, scratch / "x", "--bogus", names="--bogus")
        refused(name, "with an extra argument", tool, scratch / "x", "extra", names="extra")
        refused(name, "without PREFIX", tool)
        refused(name, "with a missing input", tool, nothing.with_suffix(""), names=str(nothing.parent))
        for kind, content in (("binary", BINARY), ("other-columns", OTHER_COLUMNS.encode())):
            folder = scratch / f"{name}-{kind}"
            folder.mkdir()
            for source, suffix in inputs:
                (folder / f"p{suffix}").write_bytes(content)
            refused(name, f"with input CSVs: {kind}", tool, folder / "p")
        folder = scratch / f"{name}-good"
        folder.mkdir()
        copy_results([(source, f"p{suffix}") for source, suffix in inputs], folder)
        refused(name, "--out ''", tool, folder / "p", "--out", "", names="--out")
        refused(name, "--out a file", tool, folder / "p", "--out", a_file, names="--out")
        refused(name, "without matplotlib (no venv)", tool, folder / "p", env=NO_VENV, names="venv")
        if HAS_MATPLOTLIB:  # it draws the figure before it writes it
            done = run(tool, folder / "p", cwd=folder)
            expect(f"{name} PREFIX: its pictures in plots/, none beside PREFIX (exit {done.returncode})",
                   done.returncode == 0 and (folder / "plots" / f"p{first_png}").is_file()
                   and not list(folder.glob("*.png")))
            (folder / "unwritable" / f"p{first_png}").mkdir(parents=True)
            refused(name, "with an output it cannot write", tool, folder / "p", "--out", folder / "unwritable")
        return folder / "p"

    # --- the plot scripts ----------------------------------------------------------------------
    device = prefix_tool("plot_device.py", [("00-device/results/h200x2_bandwidth.csv", "_bandwidth.csv"),
                                            ("00-device/results/h200x2_peak.csv", "_peak.csv")], "_bandwidth.png")
    tool = PLOT_TOOLS["plot_device.py"]
    refused("plot_device.py", "PREFIX --heat (no value)", tool, device, "--heat")
    refused("plot_device.py", "with a binary --heat CSV", tool, device, "--heat", binary)
    refused("plot_device.py", "with a missing --heat CSV", tool, device, "--heat", nothing)
    refused("plot_device.py", "--markdown with a binary input", tool, scratch / "plot_device.py-binary" / "p", "--markdown")

    prefix_tool("plot_four_steps.py", [("05-four-steps/results/h200_four_steps.csv", "_four_steps.csv")],
                "_four_steps.png")
    prefix_tool("plot_poisson.py", [("03-poisson/results/h200_sizes.csv", "_sizes.csv"),
                                    ("03-poisson/results/h200_scaling.csv", "_scaling.csv")], "_sizes.png")
    prefix_tool("plot_pm.py", [(f"04-particle-mesh/results/h200_{n}.csv", f"_{n}.csv")
                               for n in ("part2data_sizes", "strips", "transfers")], "_part2data.png")
    (scratch / "plot_pm.py-binary" / "p_part2data.csv").write_bytes(BINARY)  # the first table's input
    refused("plot_pm.py", "--markdown with a binary input", PLOT_TOOLS["plot_pm.py"],
            scratch / "plot_pm.py-binary" / "p", "--markdown")

    for name, good in (("plot_heat.py", "01-heat/results/h200_128.csv"),
                       ("plot_matmul.py", "02-matmul/results/h200_matmul.csv")):
        tool = PLOT_TOOLS[name]
        helps(name, tool)
        refused(name, "with an unknown option", tool, RESULTS / good, "--bogus", names="--bogus")
        refused(name, "without an input", tool)
        refused(name, "with a missing input", tool, nothing, "--markdown", names=str(nothing))
        refused(name, "with a binary input CSV", tool, binary, "--markdown")
        refused(name, "with an other-columns input CSV", tool, other, "--markdown")
        refused(name, "--png (no value)", tool, RESULTS / good, "--png")
        for what, value in (("a folder", scratch), ("a name without .png", scratch / "x"), ("''", "")):
            refused(name, f"--png {what}", tool, RESULTS / good, "--png", value, names=".png")
        refused(name, "with nothing to do (no --markdown, no --png)", tool, RESULTS / good, names="nothing to do")
        refused(name, "without matplotlib (no venv)", tool, RESULTS / good, "--png", scratch / "x.png",
                env=NO_VENV, names="venv")
        if HAS_MATPLOTLIB:
            refused(name, "with a --png it cannot write", tool, RESULTS / good, "--png", UNWRITABLE + ".png")
        refused(name, "with a binary --ncu CSV", tool, "--ncu", binary, RESULTS / good)
    refused("plot_heat.py", "--ncu without the tour's CSV", PLOT_TOOLS["plot_heat.py"], "--ncu",
            RESULTS / "01-heat/results/h200_ncu_512.csv")
    refused("plot_matmul.py", "with an extra argument", PLOT_TOOLS["plot_matmul.py"],
            RESULTS / "02-matmul/results/h200_matmul.csv", "extra.csv", "--markdown", names="extra.csv")

    # --- lesson_tables.py ----------------------------------------------------------------------
    tool = TOOLS / "lesson_tables.py"
    helps("lesson_tables.py", tool)
    refused("lesson_tables.py", "with an unknown option", tool, "--bogus", names="--bogus")
    refused("lesson_tables.py", "with a document outside the repository", tool, "--check", a_file, names=str(a_file))
    refused("lesson_tables.py", "with a missing document", tool, "--check", nothing, names=str(nothing))

    # --- chapters.py ---------------------------------------------------------------------------
    refused("chapters.py", "stages --timed --untimed (both: nothing)", TOOLS / "chapters.py", "stages", "01-heat",
            "--timed", "--untimed", names="--timed")

    # --- test_report.py ------------------------------------------------------------------------
    tool = TOOLS / "test_report.py"
    helps("test_report.py", tool)
    build = scratch / "build"
    (build / "meson-logs").mkdir(parents=True)
    log = build / "meson-logs" / "testlog.json"
    log.write_text('{"name": "x:heat-v0", "result": "OK", "returncode": 0, "starttime": 0, "duration": 1}\n')
    refused("test_report.py", "with an unknown option", tool, build, "--bogus", names="--bogus")
    refused("test_report.py", "with an extra argument", tool, build, "extra", names="extra")
    refused("test_report.py", "without BUILD_DIR", tool)
    refused("test_report.py", "--out (no value)", tool, build, "--out")
    refused("test_report.py", "--out '' (the current folder)", tool, build, "--out", "")
    expect("test_report.py --out '' wrote nothing into the current folder", not list(scratch.glob("test-report.*")))
    refused("test_report.py", "with an --out it cannot write", tool, build, "--out", UNWRITABLE)
    refused("test_report.py", "with an --out under a regular file", tool, build, "--out", a_file / "out")
    refused("test_report.py", "with a missing build folder", tool, scratch / "none")
    log.write_bytes(BINARY)
    refused("test_report.py", "with a binary testlog.json", tool, build)
    log.write_text('{"other": 1}\n')
    refused("test_report.py", "with a testlog.json of other fields", tool, build)

    # --- calibrate.py --------------------------------------------------------------------------
    tool = TOOLS / "grading" / "calibrate.py"
    helps("calibrate.py", tool)
    report = scratch / "report.csv"
    report.write_text("submission,chapter,stage,status,fraction\nsolutions,01-heat,v2,pass,0.5\n")
    refused("calibrate.py", "with an unknown option", tool, report, "--bogus", names="--bogus")
    refused("calibrate.py", "without a report", tool)
    refused("calibrate.py", "with a missing report", tool, nothing)
    refused("calibrate.py", "with a binary report", tool, binary)
    refused("calibrate.py", "--factor (no value)", tool, report, "--factor")
    refused("calibrate.py", "with a --targets it cannot read or write", tool, report, "--targets", a_file / "t.csv")
    refused("calibrate.py", "with a binary --targets", tool, report, "--targets", binary)

    # --- make_exercises.py, in a scratch copy of solutions/ and tools/ (never exercises/ itself) --
    copy = scratch / "repo"
    shutil.copytree(ROOT / "solutions", copy / "solutions")
    shutil.copytree(TOOLS, copy / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    tool = copy / "tools" / "make_exercises.py"
    record = (copy / "tools" / "exercise_skeletons.sha256").read_bytes()
    helps("make_exercises.py", tool)
    solution = copy / "solutions" / "01-heat" / "v0_cpu.cpp"
    for what, args, names in (("with a file but no --out (it would regenerate exercises/)", ["/nonexistent/x"],
                               "/nonexistent/x"),
                              ("with an unknown option", ["--bogus"], "--bogus"),
                              ("--pristine without --check", ["--pristine"], "--pristine"),
                              ("--out (no value)", ["--out"], "--out"),
                              ("--out '' (the current folder)", ["--out", "", solution], "--out"),
                              ("--out without a file", ["--out", copy / "out"], "SOLUTION"),
                              ("--out with a missing file", ["--out", copy / "out", "/nonexistent/x"], "/nonexistent/x"),
                              ("--out with a binary file", ["--out", copy / "out", binary], str(binary)),
                              ("with an --out it cannot write", ["--out", UNWRITABLE, solution], UNWRITABLE),
                              ("with an --out under a regular file", ["--out", a_file / "out", solution], str(a_file))):
        refused("make_exercises.py", what, tool, *args, cwd=copy, names=names)
    expect("make_exercises.py left exercises/ and its record alone after all of these",
           not (copy / "exercises").exists() and (copy / "tools" / "exercise_skeletons.sha256").read_bytes() == record)
    done = run(tool, "--out", copy / "out", solution, cwd=copy)
    expect("make_exercises.py --out DIR SOLUTION still writes its skeleton",
           done.returncode == 0 and (copy / "out" / "v0_cpu.cpp").is_file())

    # --- render_slides.py, in a scratch copy with one small deck --------------------------------
    (copy / "slides").mkdir()
    (copy / "slides" / "01-one.md").write_text("# One\n\ntext\n\n---\n\n## Two\n")
    tool = copy / "tools" / "render_slides.py"
    helps("render_slides.py", tool)
    refused("render_slides.py", "with an unknown option", tool, "--bogus", cwd=copy, names="--bogus")
    refused("render_slides.py", "with an extra argument", tool, "extra", cwd=copy, names="extra")
    refused("render_slides.py", "--out (no value)", tool, "--out", cwd=copy)
    refused("render_slides.py", "--out '' (the repository's root)", tool, "--out", "", cwd=copy)
    expect("render_slides.py --out '' wrote nothing into the root", not list(copy.glob("*.html")))
    refused("render_slides.py", "without markdown (no venv)", tool, "--check", cwd=copy, env=NO_VENV, names="venv")
    if HAS_MARKDOWN:  # without it, it stops before writing or reading decks (exit 2, the package missing)
        refused("render_slides.py", "with an --out it cannot write", tool, "--out", UNWRITABLE, cwd=copy)
        refused("render_slides.py", "with an --out under a regular file", tool, "--out", a_file / "html", cwd=copy)
        (copy / "slides" / "02-binary.md").write_bytes(BINARY)
        refused("render_slides.py", "with a binary deck", tool, "--check", cwd=copy)
    else:
        print("skipped: render_slides.py's unwritable --out and binary deck (no 'markdown' package in this Python)")

if not HAS_MATPLOTLIB:
    print("skipped: the plot scripts' unwritable outputs (no 'matplotlib' in this Python)")
finish()
