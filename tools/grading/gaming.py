"""Checks against a stage that passes its tests without doing its own work:
- borrowed code: its object file calls cuBLAS, OpenBLAS (or BLAS, LAPACK) or a function of
  another stage's file, unless the stage is allowed to (tools/grading/targets.csv); or anything
  the tests, the chapter's stage registry or its programs define, strongly or weakly; or it
  looks functions up by name as it runs (dlsym and its kin); or its file includes a test's
  file, another stage's file, the registry, a source file or anything of the build. Where only
  the stage's own file is linked (an OpenMP stage's race check), a call to another stage is a
  link error that names the other stage's symbol, and is gaming too, not a file that does not
  compile;
- host: a GPU stage whose test launched under a twentieth of the GPU threads that the solution's
  launched on the same test, or copied more to the host than twice the solution's and 64 KiB:
  it computes on the host;
- caching: its test case RecomputesWhenOnlyTheInputsChange failed, the case that calls it twice
  with the same sizes and new inputs: it hands back an earlier result.
The tools that read a student's objects (nm, c++filt, ninja's record of the headers each file
included) run in the sandbox, with the objects' names after `--` and the names to demangle from
a file, and the grader keeps a bounded part of what they print."""
import json
import os
import pathlib
import re
import subprocess
import tempfile

from chapters import ROOT, tool
from .sandbox import FETCH_BYTES, View

LIBRARIES = {"cublas": r"^cublas", "openblas": r"^(cblas_|openblas_|LAPACKE_|[sdcz](gemm|gemv|syrk|trsm)_$)"}
LOOKUPS = r"^(dlsym|dlvsym|dlopen|dlmopen|dladdr1?|dlinfo|dl_iterate_phdr)$"
SLACK_BYTES = 64 * 1024
DEFINED, USED = set("TDBRWVuiGS"), set("Uwv")  # nm's types: defined (strong or weak), used from elsewhere
SOURCES = (".c", ".cc", ".cpp", ".cu", ".cxx")


def compiled(build: pathlib.Path) -> dict:
    """Every source the build compiles (a path in the checkout) -> its object file."""
    found = {}
    for entry in json.loads((build / "compile_commands.json").read_text()):
        source = (build / entry["file"]).resolve() if not os.path.isabs(entry["file"]) else pathlib.Path(entry["file"])
        if entry.get("output", "").endswith(".o"):
            found[source] = build / entry["output"]
    return found


def objects(build: pathlib.Path) -> dict:
    """'NN-chapter/file' -> its object file in the stage library of the grading build."""
    found = {}
    for source, obj in compiled(build).items():
        match = re.search(r"submission/(\d\d-[\w-]+/[\w.]+)$", source.as_posix())
        if match:
            found[match.group(1)] = obj
    return found


class Isolation:
    """What a stage's object may not reach, for one grading build: the definitions of the tests'
    objects, of each chapter's registry and programs (read once), and of the other stages."""

    def __init__(self, build: pathlib.Path, box, support: dict):
        """SUPPORT: 'NN-chapter' -> the chapter's support sources (chapters.list)."""
        self.build, self.box = build, box
        self.forbidden = {}  # symbol -> who defines it, where a stage may not reach
        sources = compiled(build)
        owners = {}
        for source, obj in sources.items():
            if not obj.is_file():
                continue
            folder = source.parent.name
            if source.is_relative_to(ROOT / "tests"):
                owners[obj] = f"the tests ({source.relative_to(ROOT)})"
            elif source.is_relative_to(ROOT / "chapters") and source.name not in support.get(folder, ()):
                owners[obj] = f"the chapter's program ({source.relative_to(ROOT)})"
            elif source.is_relative_to(ROOT / "chapters") and b'"stage_registry.h"' in source.read_bytes():
                owners[obj] = f"the stage registry ({source.relative_to(ROOT)})"
        allowed = {obj for source, obj in sources.items() if obj.is_file() and obj not in owners
                   and not source.is_relative_to(ROOT / "submission")}  # common/, the chapters' support
        tables = self.symbols(list(owners) + sorted(allowed), trusted=True)
        provided = set().union(*(tables[obj][0] for obj in allowed))
        for obj, who in owners.items():
            for name in tables[obj][0] - provided:
                self.forbidden.setdefault(name, who)

    def symbols(self, objs: list, trusted=False) -> dict:
        """Object -> (the names it defines, the names it uses from elsewhere): nm, each object's
        table in full. A student's object is read in the sandbox, its table cut at FETCH_BYTES
        (a table that large is reported, as it could hide a name); the instructor's (TRUSTED:
        built from the checkout alone, in the pristine build) directly."""
        tables = {}
        for obj in objs:
            if trusted:
                listing = subprocess.run(["nm", "-P", "--", str(obj)], capture_output=True).stdout
            else:
                listing = self.box.run(["/bin/sh", "-c", 'exec nm -P -- "$0" > /tmp/symbols', str(obj)], self.build,
                                       limit=120, fetch="/tmp/symbols").fetched
            defined, used = set(), set()
            for line in listing.decode(errors="replace").splitlines():
                parts = line.split()
                if len(parts) >= 2:
                    (defined if parts[1] in DEFINED else used if parts[1] in USED else set()).add(parts[0])
            tables[obj] = (defined, used, len(listing) >= FETCH_BYTES)
        return tables

    def demangled(self, names: list) -> dict:
        """Name -> its C++ spelling: c++filt, in the sandbox, reading the names from a file."""
        if not names:
            return {}
        with tempfile.TemporaryDirectory(prefix="names-") as folder:
            os.chmod(folder, 0o755)
            listing = pathlib.Path(folder) / "names"
            listing.write_text("".join(n + "\n" for n in names))
            os.chmod(listing, 0o644)
            done = self.box.run(["/bin/sh", "-c", 'exec c++filt < "$0"', str(listing)], self.build, limit=60,
                                view=View(readable=(folder,)))
        spelled = done.output.splitlines()
        return dict(zip(names, spelled)) if len(spelled) == len(names) else {n: n for n in names}

    def included(self, objs: list) -> dict:
        """Object -> the files its compiler read (ninja's record of the depfiles), in the sandbox."""
        found, current = {obj: [] for obj in objs}, None
        if not objs:
            return found
        done = self.box.run(["/bin/sh", "-c", 'exec "$@" > /tmp/deps', "sh", tool("ninja"), "-C", str(self.build), "-t",
                             "deps", "--", *(str(o.relative_to(self.build)) for o in objs)], self.build, limit=60,
                            fetch="/tmp/deps")
        by_name = {str(o.relative_to(self.build)): o for o in objs}
        for line in done.fetched.decode(errors="replace").splitlines():
            if not line.startswith(" ") and ": #deps" in line:
                current = by_name.get(line.split(": #deps")[0])
            elif line.startswith("    ") and current is not None:
                found[current].append((self.build / line.strip()).resolve())
        return found

    def verdicts(self, files: list, allowed: dict) -> dict:
        """'NN-chapter/file' -> why its object is not the stage's own work ('' if it is), for the
        FILES of one chapter built from the submission. ALLOWED: file -> the libraries and files
        it may call (from targets.csv)."""
        objs = {f: o for f, o in objects(self.build).items() if f in files and o.is_file()}
        tables = self.symbols(list(objs.values()))
        headers = self.included(list(objs.values()))
        found = {}
        for f, obj in objs.items():
            may = allowed.get(f, set())
            defined, used, cut = tables[obj]
            why = [f"includes {reached}" for reached in self.reached(f, headers[obj])]
            if cut:
                why.append(f"its object's symbol table is larger than the {FETCH_BYTES >> 20} MiB the grader reads")
            for library, pattern in LIBRARIES.items():
                calls = sorted(u for u in used if re.search(pattern, u))
                if calls and library not in may:
                    why.append(f"calls {library} ({{{calls[0]}}})")
            lookups = sorted(u for u in used if re.search(LOOKUPS, u.split("@")[0]))
            if lookups:
                why.append(f"looks functions up by name as it runs ({lookups[0]})")
            for other, other_obj in objs.items():
                borrowed = sorted(used & tables[other_obj][0])
                if other != f and borrowed and other not in may:
                    why.append(f"calls {{{borrowed[0]}}} of {other}")
            reached = sorted(u for u in used if u in self.forbidden)
            if reached:
                why.append(f"calls {{{reached[0]}}} of {self.forbidden[reached[0]]}")
            found[f] = why
        names = sorted({m for why in found.values() for w in why for m in re.findall(r"\{(.+?)\}", w)})
        spelled = self.demangled(names)
        return {f: re.sub(r"\{(.+?)\}", lambda m: spelled.get(m.group(1), m.group(1)), "; ".join(why))
                for f, why in found.items()}

    def reached(self, file: str, headers: list) -> list:
        """The files FILE's compiler read that a stage may not include: the tests', another
        stage's, the registry, a source file, anything in the build."""
        own = (ROOT / "submission" / file).resolve()
        found = []
        for path in headers:
            if path == own:
                continue
            if (path.is_relative_to(ROOT / "tests") or path.is_relative_to(ROOT / "submission")
                    or path.is_relative_to(self.build) or path.name == "stage_registry.h" or path.suffix in SOURCES):
                found.append(str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path))
        return sorted(set(found))


def borrowed_at_link(build: pathlib.Path, file: str, why: str, chapter_files: list, allowed: dict, box) -> str:
    """Why FILE, replaced because WHY ("... undefined reference to `NAME'"), is gaming: NAME is
    defined by another stage's file of its chapter ('' if not)."""
    match = re.search(r"undefined reference to [`'](.+?)'", why)
    if not match:
        return ""
    objs = objects(build)
    others = [objs[o] for o in chapter_files if o != file and o not in allowed.get(file, set()) and o in objs
              and objs[o].is_file()]
    if not others:
        return ""
    done = box.run(["/bin/sh", "-c", 'exec nm -A -P -C --defined-only -- "$@" > /tmp/symbols', "sh", *map(str, others)],
                   build, limit=120, fetch="/tmp/symbols")
    for line in done.fetched.decode(errors="replace").splitlines():
        where, _, rest = line.partition(": ")
        if rest.startswith(match.group(1) + " "):  # NAME TYPE ...
            other = next(o for o in chapter_files if str(objs.get(o)) == where)
            return f"calls {match.group(1)} of {other} (its own file does not link without it)"
    return ""


def computes_on_host(counts: dict, reference: dict) -> str:
    """Why the launch counts of a GPU stage's test say it computed on the host ('' if not)."""
    if not counts or not reference:
        return ""
    threads, ref_threads = counts.get("threads", 0), reference.get("threads", 0)
    if ref_threads and threads < ref_threads / 20 and counts.get("graphs", 0) < max(1, reference.get("graphs", 0)):
        return (f"computes on the host: its test launched {threads} GPU threads, the solution's "
                f"{ref_threads}")
    copied, ref_copied = counts.get("d2h_bytes", 0), reference.get("d2h_bytes", 0)
    if copied > 2 * ref_copied + SLACK_BYTES:
        return (f"computes on the host: its test copied {copied} bytes to the host, the solution's "
                f"{ref_copied}")
    return ""
