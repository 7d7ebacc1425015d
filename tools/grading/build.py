"""The grading build: the instructor's checkout configured with -Dkernels=submission, so that it
compiles the stage files in submission/ with the instructor's common/, tests and build files.

Each submission is built in a fresh copy of the build as it is with every stage file a skeleton
(the pristine build, kept in the grader's scratch folder): nothing an earlier submission built
(its objects, its test programs, which hold a classmate's code) is there for a compiler to
embed. What a stage file compiles to is kept by the file's contents, so that a file graded
before (the same untouched skeleton, a copy of a solution) is not compiled again: its objects go
into the fresh copy, and what links them is linked anew. A stage file that does not compile (or
link) is replaced by its skeleton, so that the chapter still builds and its other stages are
graded. Ninja runs in the sandbox, with the build writable."""
import contextlib
import fcntl
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

from chapters import ROOT, tool
from .sandbox import View

SLOT = ROOT / "submission"  # where the graded stage files go (.gitignore'd)
PLACED = 1_000_000_000  # the modification time (2001) of a slot file whose outputs are in place: older than any
BUILD_LIMIT = 3600  # seconds for one run of ninja


class BuildError(Exception):
    """The grading build cannot be made (not a fault of one stage file)."""


@contextlib.contextmanager
def slot_lock():
    """One grader at a time per checkout: they would share submission/."""
    SLOT.mkdir(exist_ok=True)
    os.chmod(SLOT, 0o755)
    with open(SLOT / ".lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            sys.exit(f"grade.py: another grade.py is using {SLOT} (one grading at a time per checkout)")
        yield


def skeletons(stage_files: list, scratch: pathlib.Path) -> dict:
    """'NN-chapter/file' -> the pristine skeleton, generated from solutions/ (not taken from
    exercises/, which may hold someone's work)."""
    out = scratch / "skeletons"
    for folder in sorted({f.split("/")[0] for f in stage_files}):
        sources = [str(ROOT / "solutions" / f) for f in stage_files if f.startswith(folder + "/")]
        subprocess.run([sys.executable, str(ROOT / "tools" / "make_exercises.py"), "--out", str(out),
                        "--prefix", folder + "-", *sources], check=True, capture_output=True)
    return {f: (out / f.replace("/", "-", 1)).read_bytes() for f in stage_files}


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_slot(name: str, data: bytes, placed: bool) -> None:
    """Puts a stage file in submission/: PLACED, dated before its outputs (which are in place), so
    that ninja leaves them; else dated now, so that ninja compiles it."""
    target = SLOT / name
    target.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(target.parent, 0o755)
    if target.is_symlink() or target.exists() and not target.is_file():
        target.unlink()
    target.write_bytes(data)
    os.chmod(target, 0o644)
    if placed:
        os.utime(target, ns=(PLACED, PLACED))


class GradingBuild:
    def __init__(self, build: pathlib.Path, box, skeletons_: dict, scratch: pathlib.Path):
        self.build, self.box, self.skeletons = build, box, skeletons_
        self.pristine = scratch / "pristine"
        self.objects = scratch / "objects"  # digest of a stage file -> what it compiled to
        self.targets = []
        self.outputs = {}     # stage file -> the build's files made from it alone
        self.linked = {}      # stage file -> the build's files made from those (libraries, programs)

    def ninja(self, *args, limit=BUILD_LIMIT, view=View(build="ro")):
        return self.box.run([tool("ninja"), "-C", str(self.build), *args], self.build, limit=limit, view=view)

    def setup(self) -> None:
        """Configures the build (once), with every stage file a skeleton (dated now where it was
        not one: compiled again)."""
        for name, data in self.skeletons.items():
            target = SLOT / name
            if not target.is_file() or target.is_symlink() or target.read_bytes() != data:
                write_slot(name, data, placed=False)
        if not (self.build / "build.ninja").exists():
            # Meson's CUDA check runs a program: its driver cache goes to a scratch folder, not ~/.nv
            with tempfile.TemporaryDirectory(prefix="cuda-cache-") as cache:
                done = subprocess.run([tool("meson"), "setup", str(self.build), "-Dkernels=submission"], cwd=ROOT,
                                      capture_output=True, text=True, env={**os.environ, "CUDA_CACHE_PATH": cache})
            if done.returncode != 0:
                raise BuildError(f"meson setup {self.build} -Dkernels=submission failed:\n"
                                 f"{done.stdout[-3000:]}{done.stderr[-2000:]}")
        self.box.give(self.build)

    def make_pristine(self, targets) -> None:
        """Builds TARGETS with every stage file a skeleton, and keeps that as the pristine build."""
        self.targets = list(targets)
        ok, failures = self.run_ninja()
        if not ok:
            raise BuildError("the build fails with every stage file a skeleton: " + "; ".join(w for _, w in failures[:3]))
        for name in self.skeletons:
            os.utime(SLOT / name, ns=(PLACED, PLACED))
        self.map_outputs()
        shutil.rmtree(self.pristine, ignore_errors=True)
        subprocess.run(["cp", "-a", str(self.build), str(self.pristine)], check=True)

    def query(self, node: str) -> dict:
        """What ninja knows of NODE: {'input': [...], 'outputs': [...]}."""
        done = subprocess.run([tool("ninja"), "-C", str(self.build), "-t", "query", node], capture_output=True, text=True)
        found, key = {"input": [], "outputs": []}, None
        for line in done.stdout.splitlines():
            if line.startswith("  ") and not line.startswith("    "):
                key = line.strip().rstrip(":").split(":")[0]
            elif line.startswith("    ") and key in found:
                found[key].append(line.strip())
        return found

    def map_outputs(self) -> None:
        """For each stage file: the outputs made from it alone (kept by its contents), and
        everything that links those (made again whenever they change). Meson names a stage file
        relative to the build in compile steps, by its absolute path in custom ones."""
        names = {}  # ninja's name of a stage file -> the file
        for name in self.skeletons:
            names[os.path.relpath(SLOT / name, self.build)] = names[str(SLOT / name)] = name
        for name in self.skeletons:
            direct = {out for node, n in names.items() if n == name for out in self.query(node)["outputs"]}
            direct = sorted(out for out in direct if (self.build / out).is_file())
            if any(names.get(other, name) != name for out in direct for other in self.query(out)["input"]):
                direct = []  # made from two stage files: never kept, always compiled
            linked, queue = set(), list(direct)
            while queue:
                for consumer in self.query(queue.pop())["outputs"]:
                    if consumer not in linked:
                        linked.add(consumer)
                        queue.append(consumer)
            self.outputs[name] = direct
            self.linked[name] = sorted(out for out in linked - set(direct) if (self.build / out).is_file())

    def fresh(self, files: dict) -> list:
        """The build as it was pristine, with FILES in place: those compiled before get their kept
        outputs (the files linking them are removed, to be linked again); the others are dated
        now, to be compiled. Returns the files that ninja must compile."""
        shutil.rmtree(self.build)
        subprocess.run(["cp", "-a", str(self.pristine), str(self.build)], check=True)
        to_compile, unlinked = [], set()
        for name, skeleton in self.skeletons.items():
            data = files.get(name, skeleton)
            kept = self.objects / digest(data)
            if data == skeleton:
                write_slot(name, data, placed=True)
            elif self.outputs.get(name) and kept.is_dir():
                write_slot(name, data, placed=True)  # first: a slot file never claims outputs not yet there
                for out in self.outputs[name]:
                    target = self.build / out
                    when = target.stat().st_mtime_ns  # as the pristine build dated it: its records agree
                    shutil.copyfile(kept / digest(out.encode()), target)
                    os.utime(target, ns=(when, when))
                unlinked.update(self.linked[name])
            else:
                write_slot(name, data, placed=False)
                to_compile.append(name)
        for out in unlinked:
            (self.build / out).unlink(missing_ok=True)
        return to_compile

    def keep(self, compiled: list, files: dict) -> None:
        """Keeps what the COMPILED files of FILES compiled to, by their contents."""
        for name in compiled:
            kept = self.objects / digest(files[name])
            if kept.is_dir() or not self.outputs.get(name):
                continue
            staging = kept.with_suffix(".part")
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir(parents=True)
            for out in self.outputs[name]:
                shutil.copyfile(self.build / out, staging / digest(out.encode()))
            staging.rename(kept)

    def run_ninja(self):
        """Builds the targets in the sandbox: (ok, [(the stage files a failed step names, its first
        error line)])."""
        done = self.ninja("-k", "0", *self.targets, view=View(build="rw"))
        if done.code == 0:
            return True, []
        if "FAILED: " not in done.output:  # ninja itself could not run: no step to blame on a stage file
            raise BuildError(f"ninja could not build {self.build}: {done.output.strip()[-1500:]}")
        failures = []
        for block in re.split(r"^FAILED: ", done.output, flags=re.M)[1:]:
            block = re.split(r"^(?:\[\d+/\d+\] |ninja: )", block, flags=re.M)[0]
            files = sorted(set(re.findall(r"submission/(\d\d-[\w-]+/[\w.]+\.(?:cu|cpp|h|cuh))\b", block)))
            failures.append((files, first_error(block)))
        return False, failures

    def build_submission(self, files: dict) -> dict:
        """Builds FILES in a fresh copy; replaces what does not compile or link by its skeleton.
        Returns {'NN-chapter/file': why it was replaced}."""
        compiled = self.fresh(files)
        replaced = {}
        while True:
            ok, failures = self.run_ninja()
            if ok:
                self.keep([f for f in compiled if f not in replaced], files)
                return replaced
            named = {f: why for files_, why in failures for f in files_ if f in files and f not in replaced}
            if not named:  # a link error names objects, not sources: find the file that causes it
                suspects = [f for f in files if f not in replaced and files[f] != self.skeletons.get(f)]
                if not suspects:
                    raise BuildError("the build fails with every stage file replaced by its skeleton: "
                                     + "; ".join(why for _, why in failures[:3]))
                named = {self.bisect_link_error(files, replaced, suspects): "does not link: " + failures[0][1]}
            for f, why in named.items():
                replaced[f] = why if why.startswith("does not link") else "does not compile: " + why
                write_slot(f, self.skeletons[f], placed=False)

    def bisect_link_error(self, files, replaced, suspects) -> str:
        """The first suspect whose skeleton alone makes the build link (else the first suspect)."""
        if len(suspects) == 1:
            return suspects[0]
        for suspect in suspects:
            write_slot(suspect, self.skeletons[suspect], placed=False)
            ok, _ = self.run_ninja()
            write_slot(suspect, files[suspect], placed=False)
            if ok:
                return suspect
        return suspects[0]


def first_error(block: str) -> str:
    for line in block.splitlines()[1:]:
        if re.search(r"\berror\b|undefined reference|multiple definition", line, re.I):
            return re.sub(r"\S*submission/", "", line).strip()[:300]
    lines = block.strip().splitlines()
    return lines[-1][:300] if lines else "the build failed"
