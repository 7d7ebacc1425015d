#!/usr/bin/env python3
"""Runs every shell command that README.md, the chapter lessons and the slides tell a student
or an instructor to type, as written, in a scratch copy of the repository, so that a
documented command cannot silently stop working.

What counts as a command, in the Markdown:
- Each line of a ```sh fenced block (a line ending in '\\' continues on the next). The
  commands of a document run in order; each block starts at the repository's root, and a
  `cd` holds to the end of its block. Other blocks (```text, indented) are not run.
- A block right after the line `<!-- not run: REASON -->` is an illustration: not run, and
  listed with its reason.
- A trailing comment that starts with "fails" means the command must fail; a "quoted text"
  in that comment must appear in its output. Without a GPU, a `meson test` of GPU stages
  reports SKIP instead, and that counts as skipped.
- A comment line "# edit exercises/FILE ..." is the student's turn: the solution of that file
  is copied in, as a student who got it right would leave it.
- Exit 77 is a program saying it needs a GPU (or two): counted as skipped, with its reason.
- A test command that .ci/run itself runs on a fresh clone, as written (the README's `meson
  test` command), is CI's own: listed, not run a second time here.
A command must otherwise exit 0. No command may change a file in exercises/ (only the "edit"
turns do), nor any other committed file (a plot over a committed picture, say) but one its
comment names as "rewrites FILE", and each document starts from the pristine exercises/.

The shell is the one the README's quick start leaves: its .venv/ active. $SUBMISSIONS, which
the grader's README (tools/grading/README.md) uses, is a folder of two students' work: alice/ (the solutions/ tree, as a
student who solved everything) and bob.tar.gz (the pristine exercises/, as one who did nothing).

Then the student's loop as one exercise's header writes it (HEADER_LOOP below), with its
skeleton, a racy version and its solution.

Usage: documented_commands.py REPOSITORY_ROOT [DOCUMENT.md ...]   (default: all of them, and
       the header's loop)
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

SKIP = 77
COMMAND_TIMEOUT = 1500  # seconds: a command may build the whole project
GUARD = "TUT_DOCUMENTED_COMMANDS"  # set while this runs, so that the suite it runs skips this test


def documents(root: pathlib.Path):
    return [root / "README.md", root / "tools" / "grading" / "README.md", *sorted(root.glob("chapters/*/README.md")),
            root / "slides" / "README.md", *sorted(root.glob("slides/[0-9]*.md"))]


def commands(markdown: str):
    """(line number, command or None, comment, why it is not run or None, first line of its
    block?) in document order; command None is a comment line, which may hold an "edit" turn."""
    lines = markdown.splitlines()
    at, not_run = 0, None
    while at < len(lines):
        line = lines[at].strip()
        at += 1
        marker = re.fullmatch(r"<!--\s*not run:\s*(.*?)\s*-->", line)
        if marker:
            not_run = marker.group(1)  # for the next ```sh block
        elif line == "```sh":
            first = True
            while at < len(lines) and lines[at].strip() != "```":
                number, text = at + 1, lines[at].strip()
                while text.endswith("\\") and at + 1 < len(lines):
                    at += 1
                    text = text[:-1] + lines[at].strip()
                at += 1
                if text:
                    command, comment = (None, text) if text.startswith("#") else split_comment(text)
                    yield number, command, comment, not_run, first
                    first = False
            not_run = None
        elif line:
            not_run = None  # a marker holds only for the block right after it


def split_comment(text: str):
    """("command", "comment") at the first '#' outside quotes that follows a space."""
    quote = None
    for i, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and i > 0 and text[i - 1].isspace():
            return text[:i].rstrip(), text[i + 1:].strip()
    return text, ""


def scratch_copy(root: pathlib.Path, into: pathlib.Path) -> pathlib.Path:
    """The repository's files (tracked, and untracked but not ignored) in a fresh git repository,
    exercises/ as pristine skeletons, with the quick start's .venv/ linked in."""
    listing = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "-co", "--exclude-standard"],
                             capture_output=True, text=True, check=True).stdout
    copy = into / "course"
    for name in filter(None, listing.split("\0")):
        source = root / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    # the lessons start from the skeletons, whatever this tree's exercises/ holds (a student's
    # solved work, say): the copy's are generated from solutions/
    subprocess.run([sys.executable, str(copy / "tools" / "make_exercises.py"), "--force"], check=True,
                   capture_output=True)
    git = ["git", "-C", str(copy), "-c", "user.name=documented commands", "-c", "user.email=none@localhost"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "scratch copy"]):
        subprocess.run(git + step, check=True, capture_output=True)
    (copy / ".venv").symlink_to(root / ".venv")
    return copy


def activated_env(copy: pathlib.Path) -> dict:
    env = dict(os.environ)
    venv = copy / ".venv"
    env["VIRTUAL_ENV"] = str(venv)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env.pop("PYTHONHOME", None)
    env[GUARD] = "1"
    env["SUBMISSIONS"] = str(submissions(copy))
    env["MPLCONFIGDIR"] = str(copy / ".matplotlib-cache")  # the plot tools' font cache: not in the home folder
    # Not OMPI_ALLOW_RUN_AS_ROOT: a lesson's mpirun line must itself work as root (CI runs so)
    return env


def submissions(copy: pathlib.Path) -> pathlib.Path:
    """A folder of submissions in COPY (gone with it): alice/ solved everything, bob.tar.gz nothing."""
    folder = copy / ".submissions"
    shutil.copytree(copy / "solutions", folder / "alice")
    with tarfile.open(folder / "bob.tar.gz", "w:gz") as bob:
        bob.add(copy / "exercises", arcname="exercises")
    return folder


def snapshot(folder: pathlib.Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def restore(folder: pathlib.Path, files: dict) -> None:
    shutil.rmtree(folder)
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)


def run(command: str, cwd: pathlib.Path, env: dict):
    """(exit code, output, the directory the command left the shell in)."""
    with tempfile.NamedTemporaryFile("r", suffix=".pwd") as where:
        script = f'cd "{cwd}" || exit 99\n{command}\nstatus=$?\npwd > "{where.name}"\nexit $status\n'
        try:
            done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True,
                                  timeout=COMMAND_TIMEOUT)
        except subprocess.TimeoutExpired:
            return None, f"timed out after {COMMAND_TIMEOUT} s", cwd
        left_in = where.read().strip()
        return done.returncode, done.stdout + done.stderr, pathlib.Path(left_in) if left_in else cwd


def verdict(command: str, comment: str, status, output: str):
    """("ok" | "skipped" | "FAILED", why)."""
    if status is None:
        return "FAILED", output
    last = next((line for line in reversed(output.splitlines()) if line.strip()), "")
    if status == SKIP:
        return "skipped", "needs a GPU: " + last
    if comment.lower().startswith("fails"):
        quoted = re.findall(r'"([^"]+)"', comment)
        if status == 0 and re.search(r"\bSKIP\b", output) and "meson test" in command:
            return "skipped", "its tests need a GPU and were skipped"
        if status == 0:
            return "FAILED", "the lesson says this fails, and it succeeded"
        missing = [q for q in quoted if q not in output]
        if missing:
            return "FAILED", f"failed as the lesson says, but its output lacks {missing}"
        return "ok", f"fails as documented (exit {status})"
    if status != 0:
        return "FAILED", f"exit {status}"
    return "ok", ""


def run_checked(command: str, comment: str, cwd: pathlib.Path, env: dict, label: str, log: list):
    """Runs COMMAND and logs its verdict under LABEL: (1 if it failed else 0, where it left the shell)."""
    start = time.monotonic()
    status, output, cwd = run(command, cwd, env)
    result, why = verdict(command, comment, status, output)
    log.append(f"  {result:<8} {label}: {command}  [{time.monotonic() - start:.0f} s]" + (f"  ({why})" if why else ""))
    if result == "FAILED":
        log.append("    " + "\n    ".join(output.strip().splitlines()[-25:]))
    return int(result == "FAILED"), cwd


def ci_test_commands(copy: pathlib.Path) -> set:
    """The test commands (`meson test` lines) .ci/run runs as written on a fresh clone; its other
    lines (setting up, activating the venv) are no student command and run here when documented."""
    ci = copy / ".ci" / "run"
    lines = {line.strip() for line in ci.read_text().splitlines()} if ci.exists() else set()
    return {line for line in lines if re.match(r"(\.venv/bin/)?meson test ", line)}


def run_document(doc: pathlib.Path, copy: pathlib.Path, env: dict, pristine: dict, log: list) -> int:
    restore(copy / "exercises", pristine)
    expected, cwd, failures = dict(pristine), copy, 0
    label = doc.relative_to(copy).as_posix()
    ci_runs = ci_test_commands(copy)
    for number, command, comment, skip_reason, first in commands(doc.read_text()):
        where = f"{label}:{number}"
        if first:
            cwd = copy
        if command is None:
            turn = re.match(r"#\s*edit (exercises/[\w./-]+\w)", comment)
            if turn and not skip_reason:
                name = turn.group(1)[len("exercises/"):]
                solution = (copy / "solutions" / name).read_bytes()
                (copy / "exercises" / name).write_bytes(solution)
                expected[name] = solution
                log.append(f"  edit     {where}: {turn.group(1)} (the solution, standing in for the student's)")
            continue
        if skip_reason:
            log.append(f"  not run  {where}: {command}  ({skip_reason})")
            continue
        if command in ci_runs:
            log.append(f"  by CI    {where}: {command}  (.ci/run runs it on a fresh clone)")
            continue
        failed, cwd = run_checked(command, comment, cwd, env, where, log)
        failures += failed
        now = snapshot(copy / "exercises")
        changed = sorted(n for n in set(now) | set(expected) if now.get(n) != expected.get(n))
        if changed:
            failures += 1
            log.append(f"  FAILED   {where}: the command changed the student's exercises/ ({', '.join(changed)})")
            expected = now
        allowed = re.findall(r"\brewrites ([\w./-]*\w)", comment)  # calibrate.py's targets.csv, say
        committed = [f for f in changed_committed_files(copy) if f not in allowed]
        if committed:
            failures += 1
            log.append(f"  FAILED   {where}: the command changed committed files ({', '.join(committed)})")
            subprocess.run(["git", "-C", str(copy), "checkout", "--", *committed], check=True, capture_output=True)
    return failures


def changed_committed_files(copy: pathlib.Path) -> list:
    """The files of the scratch copy's commit that differ now, outside exercises/ (checked above)."""
    done = subprocess.run(["git", "-C", str(copy), "diff", "--name-only", "-z"], capture_output=True, text=True,
                          check=True)
    return [n for n in done.stdout.split("\0") if n and not n.startswith("exercises/")]


# The student's loop as an exercise's header gives it: its test: line fails naming the file on
# the skeleton, fails on a racy OpenMP version (where clang's Archer is installed), and passes,
# with its run: line, on the solution.
HEADER_LOOP = "03-poisson/cpu_omp_rows.cpp"
RACY = ("#pragma omp parallel for schedule(static)\n  for (int r = 1; r <= g.N; ++r)\n    for (int c = 1;",
        "  int c;  // shared by every thread\n#pragma omp parallel for schedule(static)\n"
        "  for (int r = 1; r <= g.N; ++r)\n    for (c = 1;")


def header_line(text: str, key: str) -> str:
    return next(line.split(key, 1)[1].strip() for line in text.splitlines() if line.startswith(f"//   {key}"))


def run_header_loop(copy: pathlib.Path, env: dict, pristine: dict, log: list) -> int:
    restore(copy / "exercises", pristine)
    exercise, solution = copy / "exercises" / HEADER_LOOP, (copy / "solutions" / HEADER_LOOP).read_text()
    header = exercise.read_text()
    test, program = header_line(header, "test:"), header_line(header, "run:")
    if not (copy / "build-ex").is_dir():
        run("meson setup build-ex -Dkernels=exercises", copy, env)
    racy = solution.replace(*RACY)
    turns = [("the skeleton", None, test, "fails: \"-> edit exercises/" + HEADER_LOOP + '"'),
             ("a racy version", racy, test, 'fails: "threads race on a variable they share"'),
             ("the solution", solution, test, ""), ("the solution", solution, program, "")]
    failures = 0
    for what, text, command, comment in turns:
        if text is not None:
            exercise.write_text(text)
        failures += run_checked(command, comment, copy, env, f"exercises/{HEADER_LOOP}'s header, {what}", log)[0]
    restore(copy / "exercises", pristine)
    return failures


def main(argv) -> int:
    if os.environ.get(GUARD):
        print("skipped: this is a run of the documented commands already")
        return SKIP
    if not argv:
        print(__doc__)
        return 2
    root = pathlib.Path(argv[0]).resolve()
    if not (root / ".venv" / "bin" / "activate").exists():
        print("skipped: the documented commands start after the quick start, which makes .venv/ "
              "(bash tools/quickstart.sh)")
        return SKIP
    if shutil.which("git") is None or not (root / ".git").exists():
        print("skipped: a scratch copy is made with git, and this is not a git checkout")
        return SKIP
    with tempfile.TemporaryDirectory(prefix="documented-commands-") as scratch:
        copy = scratch_copy(root, pathlib.Path(scratch))
        env = activated_env(copy)
        pristine = snapshot(copy / "exercises")
        chosen = [copy / pathlib.Path(d).resolve().relative_to(root) for d in argv[1:]] or documents(copy)
        failures, log = 0, []
        for doc in chosen:
            log.append(doc.relative_to(copy).as_posix())
            failures += run_document(doc, copy, env, pristine, log)
            print("\n".join(log), flush=True)
            log.clear()
        if not argv[1:]:
            log.append("an exercise's header")
            failures += run_header_loop(copy, env, pristine, log)
            print("\n".join(log), flush=True)
    print(f"{failures} documented command(s) failed" if failures else "every documented command ran as written")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
