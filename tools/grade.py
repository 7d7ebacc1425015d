#!/usr/bin/env python3
"""Grade students' submissions with the instructor's own tests, stage by stage.

usage: grade.py SUBMISSION... [--chapter NN-name]... [--out DIR] [--timeout SECONDS]
                [--sanitize] [--perf] [--build DIR] [--require-sandbox] [--memory-limit GIB]

A SUBMISSION is a student's exercises/ folder, a clone of the course (its exercises/ is graded,
never its solutions/), or either one packed as .zip, .tar, .tar.gz or .tgz; a folder that holds
submissions (one per entry) grades them all, and an entry it cannot read is reported as missing.
Only the stage files of the chapters' stage lists are taken from a submission; they are built
in the grading build (BUILD, default build-grading/ in this checkout: -Dkernels=submission)
with this checkout's tests, common/ and build files. Everything else in a submission is
ignored, and listed as such in the report.

Each stage is graded alone: its tests (and the idea check of its line in the stage list), each
under a time limit. A file that does not compile or link is replaced by its skeleton, so that
the chapter's other stages are still graded. The verdict on a stage's tests is not the
submission's to give: its test program sends the stage's outputs, on inputs drawn from a seed
chosen as the grader starts, to the same test built from the solutions, which checks them in a
process of its own (tools/grading/run_tests.py). Everything that compiles or runs a
submission's code runs in a bubblewrap sandbox (tools/grading/sandbox.py): no network, no other
submission in view, the checkout read-only, a memory limit, its processes killed when it ends.

The report (OUT, default grading-report/) has one row per submission and stage, status pass,
fail, skip, does-not-compile, timeout, crash, gaming or missing, with the first failure
message: report.csv, report.md, report.junit.xml. Each says whether the sandbox was in place.

  --chapter NN-name   grade these chapters only (default: every chapter with stages)
  --timeout SECONDS   the limit for each test (default 300)
  --sanitize          also run each GPU stage's tests under compute-sanitizer: memcheck, and
                      racecheck where its file uses shared memory (needs a GPU; ten times the
                      time limit, at least 600 s: the sanitizer slows kernels down)
  --perf              time each passing GPU stage against its chapter's ceiling, measured in the
                      same run, and give credit where tools/grading/targets.csv sets a target
                      (needs a GPU; tools/grading/calibrate.py sets the targets from the solutions)
  --memory-limit GIB  the data memory each sandboxed process may take (default: half the
                      machine's, at most 16 GiB)
  --require-sandbox   stop, exit 2, where the sandbox cannot be set up (bubblewrap missing, or
                      no user namespaces); without it the grader says so in the report and
                      runs the submissions' code unconfined

Gaming checks (see tools/grading/gaming.py): a stage file that calls cuBLAS, OpenBLAS or another
stage's file without leave in targets.csv; a GPU stage whose test launched almost no GPU threads
or copied its data to the host, compared with the solution's on the same test (needs a GPU: the
solutions are graded first, as the reference); a stage that hands back an earlier result when
called again with the same sizes and new inputs; a test process that claims success while the
reference run finds a failure (an exit 0 from a destructor, a rewritten report); processes left
running after a test; a GPU stage's test that ends without the launch counter's report, or
whose code took the counter's token.
"""
import argparse
import csv
import os
import pathlib
import secrets
import sys
import tempfile
import time

import chapters
from chapters import ROOT
from grading import build as grading_build
from grading import gaming, perf, report, run_tests, sandbox, submission

SEVERITY = ("gaming", "crash", "timeout", "error", "fail", "skip", "pass")


def usage_error(message: str):
    print(f"grade.py: {message} (grade.py --help says how to call it)", file=sys.stderr)
    sys.exit(2)


def parse(argv):
    parser = argparse.ArgumentParser(add_help=False)
    parser.error = usage_error  # one line, not argparse's usage (--chapter without its value, say)
    parser.add_argument("submissions", nargs="*")
    parser.add_argument("--chapter", action="append", default=[])
    parser.add_argument("--out", default="grading-report")
    parser.add_argument("--build", default=str(ROOT / "build-grading"))
    parser.add_argument("--timeout", default="300")
    parser.add_argument("--sanitize", action="store_true")
    parser.add_argument("--perf", action="store_true")
    parser.add_argument("--require-sandbox", action="store_true")
    parser.add_argument("--memory-limit", default=str(sandbox.default_memory_gib()))
    parser.add_argument("--help", "-h", action="store_true")
    args, unknown = parser.parse_known_args(argv)
    if args.help:
        print(__doc__.strip())
        sys.exit(0)
    if unknown:
        usage_error(f"unknown option {unknown[0]}")
    if not args.submissions:
        usage_error("no submission given")
    if any(not s.strip() for s in args.submissions):  # "$SUBMISSIONS" unset would grade this checkout
        usage_error("a submission path is empty (an unset variable?)")
    known = chapters.read_chapters()
    for chapter in args.chapter:
        if chapter not in known:
            usage_error(f"no chapter {chapter!r} has stages; these do: {', '.join(known)}")
    try:
        args.timeout = float(args.timeout)
        assert args.timeout > 0
    except (ValueError, AssertionError):
        usage_error(f"--timeout must be a positive number of seconds, got {args.timeout!r}")
    try:
        args.memory_limit = float(args.memory_limit)
        assert args.memory_limit > 0
    except (ValueError, AssertionError):
        usage_error(f"--memory-limit must be a positive number of GiB, got {args.memory_limit!r}")
    for option, value in (("--out", args.out), ("--build", args.build)):
        if not value.strip():
            usage_error(f"{option} is empty (an unset variable?)")
    args.build = pathlib.Path(args.build).resolve()
    args.out = pathlib.Path(args.out)
    # before minutes of grading, not after; the sandbox binds the build folder before Meson fills it
    for option, folder in (("--out", args.out), ("--build", args.build)):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            assert os.access(folder, os.W_OK)
        except (OSError, AssertionError):
            usage_error(f"{option} {folder}: cannot write there")
    return args


def read_targets() -> dict:
    """(chapter folder, stage) -> the target fraction, from targets.csv."""
    targets = {}
    with open(ROOT / "tools" / "grading" / "targets.csv") as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            if row["target"].strip() not in ("", perf.NO_TARGET):
                targets[(row["chapter"], row["stage"])] = float(row["target"])
    return targets


def have_gpu(build, box) -> bool:
    """Whether the instructor's device_info finds a GPU. In the sandbox too: the driver then keeps
    its cache (~/.nv) in the sandbox's home, and nothing the grader runs uses the GPU outside it."""
    return box.run([str(build / "chapters" / "00-device" / "device_info")], build, limit=60).code == 0


class Grader:
    def __init__(self, args, graded, grading, box, scratch):
        self.args, self.graded, self.grading, self.box, self.scratch = args, graded, grading, box, scratch
        self.files = chapters.stage_files(graded)
        self.targets = read_targets()
        self.allowed = {}  # file -> what it may call: the CALLS lines of the stages it holds
        for s in graded:
            self.allowed.setdefault(s.path, set()).update(c if c in gaming.LIBRARIES else f"{s.folder}/{c}" for c in s.calls)
        self.tests = {t["name"]: t for t in run_tests.introspect(args.build)}
        needed = [self.tests[n] for s in graded for n in (s.test, s.test + "-idea", "sanitize-" + s.test) if n in self.tests]
        self.outputs = run_tests.outputs_for(args.build, needed) + [
            "chapters/00-device/device_info", "tools/grading/libgrade_launch_counter.so"]
        self.gpu = False
        self.reference = {}  # stage test -> the launch counts of the solution's run
        self.judges = {}  # stage test -> the command of its program built from the solutions
        self.isolation = None  # what a stage's object may not reach (gaming.Isolation)
        self.preload = str(args.build / "tools" / "grading" / "libgrade_launch_counter.so")
        self.seed = secrets.randbits(62)  # the tests' inputs and extra sizes: new at every grading

    def run_test(self, name, counted=False):
        return run_tests.run(self.tests[name], self.args.timeout, self.args.build, self.box,
                             self.preload if counted else "", self.judges.get(name), self.seed)

    def measure_reference(self):
        """Builds the pristine build (every stage a skeleton), then the solutions, and keeps a copy
        of their test programs, the judges of every submission's outputs; then the solutions'
        launch counts on each GPU stage's test: what a stage computing on the GPU does. A
        solution that fails here, or trips a gaming check, means this machine or checkout is not
        fit to grade."""
        self.grading.make_pristine(self.outputs)
        solutions = {f: (ROOT / "solutions" / f).read_bytes() for f in self.files}
        replaced = self.grading.build_submission(solutions)
        if replaced:
            sys.exit(f"grade.py: the solutions do not build here: {replaced}")
        self.judges = run_tests.copy_reference(self.args.build, [self.tests[s.test] for s in self.graded],
                                               self.scratch / "reference")
        self.isolation = gaming.Isolation(self.args.build, self.box,
                                          {c.folder: c.support for c in chapters.read_chapters().values()})
        tripped = {f: why for f, why in self.foreign_calls(set(self.files)).items() if why}
        if tripped:
            sys.exit(f"grade.py: the solutions trip the gaming checks (a CALLS line missing from a stage list?): {tripped}")
        self.gpu = have_gpu(self.args.build, self.box)
        if not self.gpu:
            return
        progress("reference: the solutions' GPU stages, for the launch counts")
        for s in self.graded:
            if s.side == "gpu":
                outcome = self.run_test(s.test, counted=True)
                if outcome.status != "pass":
                    progress(f"  warning: the solution of {s.test} gives {outcome.status}: {outcome.message}")
                self.reference[s.test] = outcome.counts

    def foreign_calls(self, built: set) -> dict:
        """File -> why its object is not the stage's own work, for the BUILT files, chapter by chapter."""
        found = {}
        for folder in dict.fromkeys(s.folder for s in self.graded):
            found.update(self.isolation.verdicts([f for f in self.files if f.startswith(folder + "/") and f in built],
                                                 self.allowed))
        return found

    def new_row(self, name, s) -> dict:
        """Submission NAME's row for stage S, before it is graded: every field of the report."""
        return dict(dict.fromkeys(report.FIELDS, ""), submission=name, chapter=s.folder, stage=s.key, side=s.side,
                    target=self.targets.get((s.folder, s.key), ""))

    def grade(self, sub):
        replaced = self.grading.build_submission(sub.files)
        calls = self.foreign_calls({f for f in sub.files if f not in replaced})
        borrowed = {}  # file -> why it is gaming, by its link error
        for f, why in replaced.items():
            chapter = [g for g in self.files if g.split("/")[0] == f.split("/")[0]]
            borrowed[f] = gaming.borrowed_at_link(self.args.build, f, why, chapter, self.allowed, self.box)
        rows = []
        for s in self.graded:
            row = self.new_row(sub.name, s)
            start = time.monotonic()
            if s.path in sub.refused:
                row.update(status="missing", message=sub.refused[s.path])
            elif s.path not in sub.files:
                row.update(status="missing", message=f"{s.path} is not in the submission")
            elif s.path in replaced:
                why = borrowed[s.path]
                row.update(status="gaming" if why else "does-not-compile", message=why or replaced[s.path])
            else:
                row.update(self.run_stage(s, sub.files[s.path], calls.get(s.path, "")))
            row["seconds"] = f"{time.monotonic() - start:.1f}"
            progress(f"  {s.folder} {s.key}: {row['status']}" + (f" ({row['message'][:120]})" if row["message"] else ""))
            rows.append(row)
        if self.args.perf and self.gpu:
            self.time_stages(rows)
        return rows

    def run_stage(self, s, source: bytes, foreign: str) -> dict:
        counted = self.gpu and s.side == "gpu"
        results = [("", self.run_test(s.test, counted))]
        if s.has_idea and s.test + "-idea" in self.tests:
            results.append(("idea check: ", self.run_test(s.test + "-idea")))
        if self.args.sanitize and s.side != "cpu" and self.gpu:
            test = self.tests["sanitize-" + s.test]
            tools = "memcheck,racecheck" if b"__shared__" in source else "memcheck"
            wrapped = dict(test, cmd=test["cmd"][:2] + ["--tools", tools] + test["cmd"][2:])
            results.append(("compute-sanitizer: ", run_tests.run(wrapped, max(600, self.args.timeout * 10),
                                                                  self.args.build, self.box)))
        main = results[0][1]
        passed = sum(r.status == "pass" for _, r in results)
        if foreign:  # seen in its object, whatever its tests say
            return {"status": "gaming", "message": foreign, "tests": f"{passed}/{len(results)}"}
        if main.status == "skip":  # not graded here (no GPU): an idea check alone cannot grade it
            others = "; ".join(f"{prefix}{r.status}" + (f" ({r.message})" if r.message else "") for prefix, r in results[1:])
            return {"status": "skip", "message": main.message + (f" [{others}]" if others else ""),
                    "tests": f"{passed}/{len(results)}"}
        # the worst outcome; of two as bad, the sanitizer's message says more than the cases'
        worst_prefix, worst = min(results, key=lambda r: (SEVERITY.index(r[1].status), not r[0].startswith("compute")))
        found = {"status": worst.status, "message": worst_prefix + worst.message if worst.message else "",
                 "tests": f"{passed}/{len(results)}"}
        why = ""
        # only the case that calls it twice with the same sizes failed: it kept an earlier result
        if main.failed_cases and all(run_tests.CACHING_CASE in case for case in main.failed_cases):
            why = why or "hands back an earlier result: called again with the same sizes and new inputs, " \
                         "it returned the first call's answer (results cached between calls?)"
        if main.status == "pass" and counted:
            why = why or gaming.computes_on_host(main.counts, self.reference.get(s.test, {}))
        if worst.status == "gaming":
            why = why or worst_prefix + worst.message
        if why:
            found.update(status="gaming", message=why)
        return found

    def time_stages(self, rows):
        for folder in dict.fromkeys(r["chapter"] for r in rows):
            names = [r["stage"] for r in rows if r["chapter"] == folder and r["status"] == "pass"
                     and perf.timed(folder, r["side"], r["stage"])]
            measured = perf.fractions(self.args.build, folder, names, self.box) if names else {}
            for r in rows:
                if r["chapter"] == folder and r["stage"] in names:
                    fraction, r["ceiling"] = measured.get(r["stage"], (None, ""))
                    r["fraction"] = f"{fraction:.3f}" if fraction is not None else ""
                    if r["target"] != "":  # a stage without a target is timed, for calibrate.py, not graded
                        r["credit"] = f"{perf.credit(fraction, r['target']):.2f}" if fraction is not None else "0.00"
                    if fraction is None:
                        r["message"] = f"--perf: the chapter's program failed or ran past {perf.LIMIT} s: no time measured"


def progress(line: str):
    print(report.safe(line, 400), file=sys.stderr, flush=True)


def main(argv):
    args = parse(argv)
    graded = chapters.read_stages(args.chapter or None)
    try:
        entries = submission.expand(args.submissions, chapters.stage_files(graded))
    except submission.SubmissionError as e:
        usage_error(str(e))
    with grading_build.slot_lock(), tempfile.TemporaryDirectory(prefix="grading-") as scratch:
        scratch = pathlib.Path(scratch)
        box = sandbox.Sandbox([scratch, args.out, *(path for path, _ in entries)], args.build, args.memory_limit)
        if not box.active and args.require_sandbox:
            usage_error(f"--require-sandbox: {box.why_not}")
        progress(box.describe())
        every_file = chapters.stage_files(chapters.read_stages())
        skeletons = grading_build.skeletons(every_file, scratch)
        progress(f"grading {len(entries)} submission(s), {len(graded)} stages each, in {args.build}")
        grading = grading_build.GradingBuild(args.build, box, skeletons, scratch)
        try:
            grading.setup()
        except grading_build.BuildError as e:
            sys.exit(f"grade.py: {e}")
        grader = Grader(args, graded, grading, box, scratch)
        progress("building the pristine build and the solutions (the reference)")
        try:
            grader.measure_reference()
        except grading_build.BuildError as e:
            sys.exit(f"grade.py: {e}")
        if not grader.gpu:
            progress("no usable GPU here: the GPU stages are reported as skipped, not graded")
        rows, ignored, edited, seconds = [], {}, {}, {}
        for number, (path, name) in enumerate(entries, 1):
            start = time.monotonic()
            try:
                sub = submission.load(path, name, grader.files, every_file, scratch / "unpacked" / str(number))
            except (submission.SubmissionError, OSError) as e:  # still a row per stage: no student drops out of the report
                progress(f"[{number}/{len(entries)}] {name}: {e}")
                rows += [dict(grader.new_row(name, s), status="missing", message=f"could not read the submission: {e}")
                         for s in graded]
                seconds[name] = time.monotonic() - start
                continue
            progress(f"[{number}/{len(entries)}] {name}: {len(sub.files)} stage files, {len(sub.ignored)} other files ignored")
            try:
                rows += grader.grade(sub)
            except Exception as e:  # the grader's own failure on this submission: the others are still graded
                progress(f"  could not grade {name}: {type(e).__name__}: {e}")
                rows += [dict(grader.new_row(name, s), status="error",
                              message=f"the grader could not grade it ({type(e).__name__}: {e}): grade it again, or by hand")
                         for s in graded]
            ignored[name], edited[name] = sub.ignored, sub.edited
            seconds[name] = time.monotonic() - start
    report.write(rows, args.out, ignored, edited, seconds, box.describe())
    print(f"{len(seconds)} submission(s) graded: {report.totals_line(rows)}; report in {args.out}/report.md, "
          f"report.csv, report.junit.xml")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
