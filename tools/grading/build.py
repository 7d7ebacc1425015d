"""The grading build: the instructor's checkout configured with -Dkernels=submission, so that it
compiles the stage files in submission/ with the instructor's common/, tests and build files.
A stage file that does not compile (or link) is replaced by its skeleton, so that the chapter
still builds and its other stages are graded."""
import contextlib
import fcntl
import pathlib
import re
import subprocess
import sys

from chapters import ROOT, tool

SLOT = ROOT / "submission"  # where the graded stage files go (.gitignore'd)


@contextlib.contextmanager
def slot_lock():
    """One grader at a time per checkout: they would share submission/."""
    SLOT.mkdir(exist_ok=True)
    with open(SLOT / ".lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            sys.exit(f"grade.py: another grade.py is using {SLOT} (one grading at a time per checkout)")
        yield


def configure(build: pathlib.Path, fallback: dict) -> None:
    if (build / "build.ninja").exists():
        return
    place({}, fallback)  # configuring needs every stage file to exist
    done = subprocess.run([tool("meson"), "setup", str(build), "-Dkernels=submission"], cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"grade.py: meson setup {build} -Dkernels=submission failed:\n{done.stdout[-3000:]}{done.stderr[-2000:]}")


def skeletons(stage_files: list, scratch: pathlib.Path) -> dict:
    """'NN-chapter/file' -> the pristine skeleton, generated from solutions/ (not taken from
    exercises/, which may hold someone's work)."""
    out = scratch / "skeletons"
    for folder in sorted({f.split("/")[0] for f in stage_files}):
        sources = [str(ROOT / "solutions" / f) for f in stage_files if f.startswith(folder + "/")]
        subprocess.run([sys.executable, str(ROOT / "tools" / "make_exercises.py"), "--out", str(out),
                        "--prefix", folder + "-", *sources], check=True, capture_output=True)
    return {f: (out / f.replace("/", "-", 1)).read_bytes() for f in stage_files}


def place(files: dict, fallback: dict) -> None:
    """Put FILES (and FALLBACK's for the rest) into submission/, writing only what changed, so
    that the build recompiles only those."""
    for name, data in {**fallback, **files}.items():
        target = SLOT / name
        if not target.is_file() or target.read_bytes() != data:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


def ninja(build: pathlib.Path, box, targets=()):
    """Build TARGETS (everything by default) in the sandbox BOX: (ok, [(the stage files a failed
    step names, its first error line)])."""
    cmd, env, limits = box.wrap([tool("ninja"), "-C", str(build), "-k", "0", *targets], build, {}, compiling=True)
    done = subprocess.run(cmd, cwd=build, env=env, preexec_fn=limits, capture_output=True, text=True)
    if done.returncode == 0:
        return True, []
    if "FAILED: " not in done.stdout:  # ninja itself could not run: no step to blame on a stage file
        sys.exit(f"grade.py: ninja could not build {build}:\n{(done.stdout + done.stderr)[-2000:]}")
    failures = []
    for block in re.split(r"^FAILED: ", done.stdout, flags=re.M)[1:]:
        block = re.split(r"^(?:\[\d+/\d+\] |ninja: )", block, flags=re.M)[0]
        files = sorted(set(re.findall(r"submission/(\d\d-[\w-]+/[\w.]+\.(?:cu|cpp|h|cuh))\b", block)))
        failures.append((files, first_error(block)))
    return False, failures


def first_error(block: str) -> str:
    for line in block.splitlines()[1:]:
        if re.search(r"\berror\b|undefined reference|multiple definition", line, re.I):
            return re.sub(r"\S*submission/", "", line).strip()[:300]
    lines = block.strip().splitlines()
    return lines[-1][:300] if lines else "the build failed"


def build_submission(build: pathlib.Path, box, files: dict, fallback: dict, targets=()):
    """Build with FILES in place; replace what does not compile or link by FALLBACK's skeleton.
    Returns {'NN-chapter/file': why it was replaced}."""
    replaced = {}
    place(files, fallback)
    while True:
        ok, failures = ninja(build, box, targets)
        if ok:
            return replaced
        named = {f: why for files_, why in failures for f in files_ if f in files and f not in replaced}
        if not named:  # a link error names objects, not sources: find the file that causes it
            suspects = [f for f in files if f not in replaced]
            if not suspects:
                sys.exit("grade.py: the build fails with every stage file replaced by its skeleton: "
                         + "; ".join(why for _, why in failures[:3]))
            named = {suspects[0]: "does not link: " + failures[0][1]} if len(suspects) == 1 else \
                {bisect_link_error(build, box, files, fallback, replaced, suspects, targets): "does not link: " + failures[0][1]}
        for f, why in named.items():
            replaced[f] = why if why.startswith("does not link") else "does not compile: " + why
        place({f: d for f, d in files.items() if f not in replaced}, fallback)


def bisect_link_error(build, box, files, fallback, replaced, suspects, targets) -> str:
    """The first suspect whose skeleton alone makes the build link (else the first suspect)."""
    for suspect in suspects:
        place({f: d for f, d in files.items() if f not in replaced and f != suspect}, fallback)
        if ninja(build, box, targets)[0]:
            return suspect
    return suspects[0]
