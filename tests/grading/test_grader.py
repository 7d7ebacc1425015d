#!/usr/bin/env python3
"""Grades with tools/grade.py (--require-sandbox, 4 GiB of memory, a 60 s limit per test, 120 s
for every chapter), end to end, and checks the reports:
1. the solutions of every chapter, as a student's submission, with --perf, beside chapter 03's
   attacks (attacks.poisson): every stage of the solutions passes (without a GPU, its GPU stages
   are skipped; with one GPU, the two-GPU stages; where the build has no OpenACC or MPI, those
   stages), and on a GPU each timed stage with a target earns credit;
2. the synthetic submissions of make_submissions.py for chapter 02, the attacks of both rounds
   among them: each planted mistake and attack gets the status and message it must, every other
   stage passes (or is skipped), the files a student must not change are listed as ignored, a
   file the grader cannot read is reported, and the CSV, Markdown and JUnit totals agree;
3. the out-of-bounds submission again with --sanitize and --perf.
And that the attacks got nowhere: the checkout's files, the other submissions and the home
folder are as they were (checksums before and after), nothing was planted in the grading build
or the home folder, no connection reached the port or the socket file the test listens on, no
report holds a line of a solution, no name reached the terminal with its escapes, and no process
a submission started is left (the attacks name theirs tut-lingerer).

usage: test_grader.py GRADING_BUILD_DIR [KEEP_REPORTS_DIR] [--only every-chapter | --only chapter-02]
  --only  the first run alone, or the second and third (a GPU machine's time limit per command)
"""
import collections
import contextlib
import csv
import hashlib
import os
import pathlib
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import attacks  # noqa: E402
import make_submissions  # noqa: E402

ROOT = make_submissions.ROOT
sys.path.insert(0, str(ROOT / "tools"))
from grading import submission  # noqa: E402

GUARDED = ("common", "chapters", "tests", "tools", "solutions", "exercises", "slides", "meson.build", "README.md")
ALL_CHAPTERS = "all_chapters_solved"


def grade(build, submissions, out, *options, timeout=60):
    """Runs grade.py, its progress shown as it comes; (rows of report.csv, report.md, the JUnit
    root, its terminal output), or None."""
    process = subprocess.Popen([sys.executable, str(ROOT / "tools" / "grade.py"), *map(str, submissions),
                                "--timeout", str(timeout), "--out", str(out), "--build", str(build), "--require-sandbox",
                                "--memory-limit", "4", *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, errors="replace")
    said = []
    for line in process.stdout:
        print(line, end="", flush=True)
        said.append(line)
    if process.wait() != 0:
        print(f"FAIL: grade.py exited {process.returncode}")
        return None
    return (list(csv.DictReader(open(out / "report.csv"))), (out / "report.md").read_text(),
            ET.parse(out / "report.junit.xml").getroot(), "".join(said))


def checksums(*places) -> dict:
    """path -> sha256 of every file under PLACES (a link: its target's name)."""
    sums = {}
    for place in places:
        for path in sorted([place] if place.is_file() else place.rglob("*")):
            if path.is_symlink():
                sums[str(path)] = "link to " + os.readlink(path)
            elif path.is_file() and "__pycache__" not in path.parts:
                sums[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return sums


def home_listing(home: pathlib.Path) -> dict:
    """The home folder's own entries, by name (what a planted file would change)."""
    return {f"{home}/{entry.name}": "entry" for entry in home.iterdir()} if home.is_dir() else {}


def processes(comm: str) -> list:
    """The processes named COMM (every attack names the processes it leaves: tut-lingerer)."""
    found = []
    for status in pathlib.Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        if fields.get("Name", "").strip() == comm:
            found.append(status.parent.name)
    return found


def refuses_before_grading() -> list:
    """Arguments that must stop grade.py at once, with one line and exit 2: an empty path (an
    unset variable would grade the checkout), --chapter without its value, an empty or unwritable
    --out or --build, and --require-sandbox where there is no bubblewrap."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="refused-") as scratch:
        places = ["--out", f"{scratch}/report", "--build", f"{scratch}/build"]
        solutions = str(ROOT / "solutions")
        for args in ([""], [solutions, "--chapter"], [solutions, "--out", ""], [solutions, "--out", "/proc/no-report"],
                     [solutions, "--build", "/proc/no-build"], [solutions, "--memory-limit", "0", *places]):
            done = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), *args], capture_output=True,
                                  text=True, timeout=60, cwd=scratch)
            if done.returncode != 2 or len(done.stderr.strip().splitlines()) != 1:
                problems.append(f"grade.py {args}: exit {done.returncode}, stderr {done.stderr[-300:]!r} "
                                "(expected exit 2, one line)")
        # no bubblewrap on PATH: --require-sandbox stops before anything is built
        done = subprocess.run([sys.executable, str(ROOT / "tools" / "grade.py"), solutions, "--require-sandbox",
                               *places], capture_output=True, text=True, timeout=60, cwd=scratch,
                              env=dict(os.environ, PATH=str(pathlib.Path(sys.executable).parent)))
        if done.returncode != 2 or "--require-sandbox: bubblewrap (bwrap) is not installed" not in done.stderr:
            problems.append(f"grade.py --require-sandbox without bwrap: exit {done.returncode}, {done.stderr[-300:]!r}")
    return problems


@contextlib.contextmanager
def planted(scratch: pathlib.Path):
    """What the attacks aim at: a server on the loopback, a socket file (in /run as root), a build
    folder in the checkout (as the quick start's build/), the home folder."""
    checkout_build = ROOT / f"build-tut-attack-target-{os.getpid()}"
    checkout_build.mkdir()
    (checkout_build / "libmatmult.so").write_text("the solutions' library, as a build folder of the checkout holds it")
    place = pathlib.Path("/run") if os.geteuid() == 0 and os.access("/run", os.W_OK) else scratch
    socket_path = place / f"tut-grader-test-{os.getpid()}.sock"
    home = pathlib.Path(os.environ.get("HOME") or pwd.getpwuid(os.getuid()).pw_dir)
    with socket.socket() as server, socket.socket(socket.AF_UNIX) as unix:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        unix.bind(str(socket_path))
        unix.listen()
        unix.setblocking(False)
        try:
            yield {"port": server.getsockname()[1], "socket": str(socket_path), "checkout_build": str(checkout_build),
                   "home": str(home)}, [server, unix]
        finally:
            socket_path.unlink(missing_ok=True)
            shutil.rmtree(checkout_build)


def write_all_chapters(folder: pathlib.Path) -> dict:
    """The solutions of every chapter as a submission, and chapter 03's attacks: their expectations."""
    shutil.copytree(ROOT / "solutions", folder / ALL_CHAPTERS / "exercises")
    chosen = attacks.poisson({})
    make_submissions.write_alone(folder, chosen, attacks.POISSON)
    return chosen


def main(build: pathlib.Path, keep=None, only=None) -> int:
    with tempfile.TemporaryDirectory(prefix="graded-") as scratch, planted(pathlib.Path(scratch)) as (aims, servers):
        scratch = pathlib.Path(scratch)
        targets = {"other": scratch / "submissions" / make_submissions.CLONED / "exercises" / "02-matmul" / "nat_triple_loop.cpp",
                   "root": ROOT, "build": build, **aims}
        make_submissions.write(scratch / "submissions", targets)
        poisson_attacks = write_all_chapters(scratch / "chapters")
        home = pathlib.Path(aims["home"])
        guarded = [ROOT / g for g in GUARDED] + [scratch / "submissions", scratch / "chapters"]
        before = {**checksums(*guarded), **home_listing(home)}
        runs = {}
        if only in (None, "every-chapter"):
            # gpu8 times its plans on a shape's first call (26 s on an H200): the longest test of all
            runs["every chapter"] = grade(build, [scratch / "chapters"], scratch / "report-chapters", "--perf",
                                          timeout=120)
        if only in (None, "chapter-02"):
            runs["chapter 02"] = grade(build, [scratch / "submissions"], scratch / "report", "--chapter", "02-matmul")
            runs["--sanitize --perf"] = grade(build, [scratch / "submissions" / "writes_out_of_bounds"],
                                              scratch / "report-sanitized", "--chapter", "02-matmul", "--sanitize", "--perf")
        for name in ("report-chapters", "report", "report-sanitized") if keep else ():
            if (scratch / name).is_dir():
                shutil.copytree(scratch / name, pathlib.Path(keep) / name, dirs_exist_ok=True)
        after = {**checksums(*guarded), **home_listing(home)}
        problems = escapes(before, after, build, servers, runs) + refuses_before_grading()
    if not all(runs.values()):
        return 1
    submissions = make_submissions.every_submission(targets)
    if "every chapter" in runs:
        problems += check(*runs["every chapter"][:3], {ALL_CHAPTERS: ({}, {}), **poisson_attacks},
                          found_gpu(runs["every chapter"][0]), every_chapter=True)
    if "chapter 02" in runs:
        gpu = found_gpu(runs["chapter 02"][0])  # the sanitized run's one stage, when it fails, does not tell
        problems += check(*runs["chapter 02"][:3], submissions, gpu)
        problems += check(*runs["--sanitize --perf"][:3], submissions, gpu, expect_out_of_bounds=True)
        problems += terminal(runs["chapter 02"][3])
    for p in problems:
        print("FAIL:", p)
    print(f"{sum(len(r[0]) for r in runs.values())} rows checked, {len(problems)} problem(s)")
    return 1 if problems else 0


def escapes(before: dict, after: dict, build: pathlib.Path, servers, runs) -> list:
    """What the attacks on the grader achieved outside their sandbox (nothing, if all is well)."""
    problems = [f"{path} was changed, added or removed while grading" for path in sorted(set(before) | set(after))
                if before.get(path) != after.get(path)]
    if (build / "planted.txt").exists():
        problems.append(f"a submission wrote {build / 'planted.txt'} into the grading build")
    for server in servers:
        try:
            server.accept()[0].close()
            problems.append(f"a submission reached a server the test listens on ({server.getsockname()})")
        except BlockingIOError:
            pass
    if processes(comm="tut-lingerer"):
        problems.append(f"processes a submission started are still running: {processes(comm='tut-lingerer')}")
    solution_line = (ROOT / "solutions" / "02-matmul" / "gpu5_shared_tiles.cu").read_text().splitlines()[3]
    for name, run in runs.items():
        if run and any(solution_line in text for text in (run[1], run[3], ET.tostring(run[2], encoding="unicode"))):
            problems.append(f"the report of the {name} run quotes a solution file ({solution_line!r})")
    return problems


def terminal(output: str) -> list:
    """No name reaches the terminal with its escapes or control characters."""
    bad = sorted({repr(c) for c in output if not c.isprintable() and c not in "\n\t"})
    return [f"grade.py wrote control characters to the terminal: {', '.join(bad)}"] if bad else []


def allowed_statuses(want: str, side: str, gpu: bool, sandbox_line: str) -> set:
    """The statuses a row may have. WANT's 'gpu-' prefix: only on a GPU (else skip);
    'fail-if-memory-limited:OTHER' and 'fail-if-processes-limited:OTHER': fail where the
    sandbox limits that as a whole, else OTHER."""
    if want.startswith("fail-if-"):
        limit, _, other = want[len("fail-if-"):].partition(":")
        limited = "per sandbox (cgroup" in sandbox_line or (limit == "processes-limited" and "processes per user" in sandbox_line)
        return {"fail"} if limited else {other}
    if want.startswith("gpu-"):
        return ({"fail", "crash"} if want == "gpu-fail" else {want[4:]}) if gpu else {"skip"}
    allowed = {want}
    if want == "pass" and side in ("gpu", "multigpu", "acc"):  # skipped without a GPU
        allowed = {"pass"} if gpu else {"skip"}
    if side in ("multigpu", "acc", "mpi"):
        allowed |= {"skip"}  # two GPUs, OpenACC offloading or MPI missing here
    return allowed


def race_check_skipped(row) -> bool:
    """An OpenMP stage whose race check skipped (no clang++ or no Archer here): the stage is skipped."""
    return row["status"] == "skip" and "clang" in row["message"]


def found_gpu(rows) -> bool:
    """Whether the grader had a GPU: some GPU stage of a run with correct submissions passed."""
    return any(r["side"] == "gpu" and r["status"] == "pass" for r in rows)


def check(rows, markdown, junit, submissions, gpu, expect_out_of_bounds=False, every_chapter=False):
    problems = []
    sandbox_line = markdown.splitlines()[2] if len(markdown.splitlines()) > 2 else ""
    print(f"graded {'with' if gpu else 'without'} a GPU: {sandbox_line}")
    if "sandbox: bubblewrap" not in markdown or "sandbox" not in junit.find("properties/property").attrib.values():
        problems.append("the report does not say that the sandbox was in place")
    for name, (_, expected) in submissions.items():
        alone = name not in make_submissions.FULL and name != ALL_CHAPTERS  # its changed files alone
        if expect_out_of_bounds and name != "writes_out_of_bounds":
            continue
        if name == "writes_out_of_bounds" and not expect_out_of_bounds:
            expected = {"gpu2": ("pass", "")}  # its tests pass: only the sanitizer sees the write
        shown = submission.printable(name)
        stages = [r for r in rows if r["submission"] == shown]
        if not stages:
            problems.append(f"{shown}: not in the report")
        for r in stages:
            honest = ("missing", "not in the submission") if alone else ("pass", "")
            want, piece = expected.get(r["stage"], honest)
            allowed = allowed_statuses(want, r["side"], gpu, sandbox_line)
            if (r["status"] not in allowed and not race_check_skipped(r)) or (r["status"] != "skip" and piece not in r["message"]):
                problems.append(f"{shown} {r['stage']}: {r['status']} ({r['message']}), expected {sorted(allowed)}"
                                + (f" with {piece!r}" if piece else ""))
            if every_chapter and gpu and name == ALL_CHAPTERS and r["status"] == "pass" and r["target"] \
                    and not float(r["credit"] or 0) > 0:
                problems.append(f"{shown} {r['stage']}: no performance credit ({r['fraction']} of {r['target']})")
    if not expect_out_of_bounds and not every_chapter:
        late = [r for r in rows if r["submission"] == make_submissions.UNREADABLE]  # named without .rar
        if not late or any(r["status"] != "missing" or "could not read" not in r["message"] for r in late):
            problems.append(f"{make_submissions.UNREADABLE}.rar: not reported as unreadable, one row per stage: {late}")
        edited = {r["submission"]: r["edited_files"].split() for r in rows}
        for changed in ("tests/02-matmul/matmul_test_support.h", "common/validate.cpp"):
            if changed not in edited.get("edits_tests_and_common", []) or f"**{changed}** (flagged" not in markdown:
                problems.append(f"edits_tests_and_common: {changed} is not reported as edited and flagged")
        if edited.get("wrong_stage"):  # a clone: its solutions/ and the rest are the checkout's own files
            problems.append(f"wrong_stage: files reported as edited that are the checkout's: {edited['wrong_stage'][:5]}")
    count = collections.Counter(r["status"] for r in rows)
    wrong = count["fail"] + count["gaming"]  # JUnit failures; the other failing statuses are errors
    errors = sum(n for s, n in count.items() if s not in ("pass", "skip")) - wrong
    if [int(junit.get(k)) for k in ("tests", "failures", "errors", "skipped")] != [len(rows), wrong, errors, count["skip"]]:
        problems.append(f"JUnit totals {dict(junit.attrib)} differ from the CSV's: {len(rows)} rows, {dict(count)}")
    if f"{count['pass']} pass" not in markdown:
        problems.append("the Markdown totals differ from the CSV's")
    if expect_out_of_bounds and gpu:  # --perf: each passing GPU stage with a target has its fraction
        for r in rows:
            if r["status"] == "pass" and r["target"] and not r["fraction"]:
                problems.append(f"{r['submission']} {r['stage']}: --perf measured no fraction of the ceiling")
    return problems


if __name__ == "__main__":
    arguments = sys.argv[1:]
    only = arguments[arguments.index("--only") + 1] if "--only" in arguments[:-1] else None
    arguments = [a for a in arguments if a not in ("--only", only)]
    if len(arguments) not in (1, 2) or only not in (None, "every-chapter", "chapter-02"):
        sys.exit(__doc__)
    if os.environ.get("TUT_DOCUMENTED_COMMANDS"):  # the suite that runs the documented commands runs this too
        print("skipped: inside the documented commands' scratch copy; the outer suite grades the same submissions")
        sys.exit(77)
    sys.exit(main(pathlib.Path(arguments[0]).resolve(), *arguments[1:], only=only))
