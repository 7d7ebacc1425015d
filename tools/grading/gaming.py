"""Checks against a stage that passes its tests without doing its work:
- calls: its object file calls cuBLAS, OpenBLAS (or BLAS, LAPACK) or a function of another
  stage's file, unless the stage is allowed to (tools/grading/targets.csv); where only the
  stage's own file is linked (an OpenMP stage's race check), such a call is a link error that
  names the other stage's symbol, and is gaming too, not a file that does not compile;
- host: a GPU stage whose test launched under a twentieth of the GPU threads that the solution's
  launched on the same test, or copied more to the host than twice the solution's and 64 KiB:
  it computes on the host;
- caching: its test case RecomputesWhenOnlyTheInputsChange failed, the case that calls it twice
  with the same sizes and new inputs: it hands back an earlier result."""
import json
import pathlib
import re
import subprocess

LIBRARIES = {"cublas": r"^cublas", "openblas": r"^(cblas_|openblas_|LAPACKE_|[sdcz](gemm|gemv|syrk|trsm)_$)"}
SLACK_BYTES = 64 * 1024


def objects(build: pathlib.Path) -> dict:
    """'NN-chapter/file' -> its object file in the stage library of the grading build."""
    found = {}
    for entry in json.loads((build / "compile_commands.json").read_text()):
        match = re.search(r"submission/(\d\d-[\w-]+/[\w.]+)$", entry["file"])
        if match and entry.get("output", "").endswith(".o"):
            found[match.group(1)] = build / entry["output"]
    return found


def symbols(obj: pathlib.Path):
    """(the functions and data it defines, the ones it uses from elsewhere)."""
    done = subprocess.run(["nm", "-P", str(obj)], capture_output=True, text=True)
    defined, used = set(), set()
    for line in done.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            (used if parts[1] == "U" else defined if parts[1] in "TDBR" else set()).add(parts[0])
    return defined, used


def demangle(name: str) -> str:
    done = subprocess.run(["c++filt", name], capture_output=True, text=True)
    return done.stdout.strip() or name


def foreign_calls(build: pathlib.Path, chapter_files: list, allowed: dict) -> dict:
    """'NN-chapter/file' -> why its object is not the stage's own work ('' if it is). ALLOWED:
    file -> the libraries and files it may call (from targets.csv)."""
    objs = objects(build)
    table = {f: symbols(objs[f]) for f in chapter_files if f in objs and objs[f].is_file()}
    verdicts = {}
    for f, (_, used) in table.items():
        may = allowed.get(f, set())
        why = []
        for library, pattern in LIBRARIES.items():
            calls = sorted(u for u in used if re.search(pattern, u))
            if calls and library not in may:
                why.append(f"calls {library} ({demangle(calls[0])})")
        for other, (defined, _) in table.items():
            borrowed = sorted(used & defined)
            if other != f and borrowed and other not in may:
                why.append(f"calls {demangle(borrowed[0])} of {other}")
        verdicts[f] = "; ".join(why)
    return verdicts


def borrowed_at_link(build: pathlib.Path, file: str, why: str, chapter_files: list, allowed: dict) -> str:
    """Why FILE, replaced because WHY ("... undefined reference to `NAME'"), is gaming: NAME is
    defined by another stage's file of its chapter ('' if not)."""
    match = re.search(r"undefined reference to [`'](.+?)'", why)
    if not match:
        return ""
    objs = objects(build)
    for other in chapter_files:
        if other == file or other in allowed.get(file, set()) or other not in objs or not objs[other].is_file():
            continue
        done = subprocess.run(["nm", "-P", "-C", "--defined-only", str(objs[other])], capture_output=True, text=True)
        if any(line.startswith(match.group(1) + " ") for line in done.stdout.splitlines()):  # NAME TYPE ...
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
