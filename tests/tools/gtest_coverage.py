"""Every GoogleTest case runs: each case of each test program that a Meson test of BUILD_DIR
runs is selected by the --gtest_filter of some Meson test (a program run without a filter runs
all its cases). A case that no Meson test selects passes every `meson test` without ever
running, as HeatResident.* once did. Lists each program's cases with --gtest_list_tests (the
GPU programs list theirs without a GPU) and prints the programs, their cases and any case left
out; exit 1 if one is.

Usage: gtest_coverage.py BUILD_DIR [--without TEST --expect-failure]
  --without TEST    leave that Meson test out (the check of this check: without
                    heat-resident-paths, the HeatResident cases are selected by none)
  --expect-failure  pass only if some case is left out"""
import fnmatch
import json
import os
import pathlib
import subprocess
import sys

from expectations import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import chapters  # noqa: E402  (tools/ is not a package on the path by default)


def cases_of(program: str) -> list:
    """The full names (Suite.Case, with a parameterized case's prefix and stage) of a program's cases."""
    listed = subprocess.run([program, "--gtest_list_tests"], capture_output=True, text=True, timeout=120)
    if listed.returncode != 0:
        raise SystemExit(f"gtest_coverage: {program} --gtest_list_tests exited {listed.returncode}: "
                         f"{(listed.stdout + listed.stderr).strip()[-300:]}")
    cases, suite = [], None
    for line in listed.stdout.splitlines():
        if not line.strip() or line.startswith(("Running main()", "running on", "skipped:")):
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()  # "heat/HeatStageTest."
        elif suite:
            cases.append(suite + line.split("#")[0].strip())
    return cases


def is_test_program(arg: str, build: pathlib.Path) -> bool:
    """A GoogleTest program this build made (test_*, not a script of tests/)."""
    path = pathlib.Path(arg).resolve()
    return path.name.startswith("test_") and path.is_relative_to(build) and path.suffix == "" and os.access(path, os.X_OK)


def selects(gtest_filter: str, case: str) -> bool:
    """GoogleTest's filter: ':'-separated patterns (* and ?), then after '-' the ones left out."""
    positive, _, negative = gtest_filter.partition("-")
    hit = lambda patterns: any(fnmatch.fnmatchcase(case, p) for p in patterns.split(":") if p)
    return (not positive or hit(positive)) and not hit(negative)


def main(argv: list) -> int:
    build, without, expect_failure = None, set(), False
    while argv:
        arg = argv.pop(0)
        if arg == "--without" and argv:
            without.add(argv.pop(0))
        elif arg == "--expect-failure":
            expect_failure = True
        elif build is None and not arg.startswith("--"):
            build = pathlib.Path(arg).resolve()
        else:
            print(__doc__.split("\n\n")[-1], file=sys.stderr)
            return 2
    if build is None or not (build / "meson-info").is_dir():
        print("gtest_coverage: BUILD_DIR must be a Meson build folder (usage: gtest_coverage.py BUILD_DIR)", file=sys.stderr)
        return 2
    listed = json.loads(subprocess.run([chapters.tool("meson"), "introspect", "--tests", str(build)],
                                       capture_output=True, text=True, check=True).stdout)
    filters = {}  # program -> the filters of the Meson tests that run it (None: all its cases)
    for t in listed:
        if t["name"] in without:
            continue
        args = t["cmd"] + [a for a in t.get("args", []) if a not in t["cmd"]]
        programs = [str(pathlib.Path(a).resolve()) for a in args if is_test_program(a, build)]
        chosen = [a.split("=", 1)[1] for a in args if a.startswith("--gtest_filter=")]
        for program in programs:
            filters.setdefault(program, []).extend(chosen or [None])
    left_out = []
    for program in sorted(filters):
        plain = pathlib.Path(program).name.split("_stressed")[0]
        if plain != pathlib.Path(program).name:  # the stress suite's build of a program: its cases are the plain one's
            print(f"{pathlib.Path(program).name}: the stress suite's build of {plain}, which runs its cases")
            continue
        cases = cases_of(program)
        missing = [c for c in cases if not any(f is None or selects(f, c) for f in filters[program])]
        print(f"{pathlib.Path(program).name}: {len(cases)} cases, {len(filters[program])} Meson tests run it"
              + (f", {len(missing)} selected by none" if missing else ""))
        left_out += [f"{pathlib.Path(program).name}: {c}" for c in missing]
    for line in left_out:
        print("  selected by no Meson test:", line)
    if expect_failure:
        print("caught, as it must be" if left_out else "FAIL: every case is selected, yet a test was left out")
        return 0 if left_out else 1
    print(f"{len(filters)} programs, {'no case' if not left_out else len(left_out)} left out")
    return 1 if left_out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
