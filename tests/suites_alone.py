#!/usr/bin/env python3
"""Each suite on its own: that `meson test --suite S` on a fresh build passes (or skips), because
each of its tests declares what it runs or reads.

Meson builds, for `meson test --suite S`, only what S's tests declare: their programs, the
targets among their arguments and their `depends:`. A test that runs another build output by its
path passes in a full run and fails alone. Building a fresh tree per suite would take an hour on
2 cores, so this check takes a build where everything is built, and for each suite hides every
build output that S's tests do not declare (moved aside, then back), and runs S's tests with
--no-rebuild: what they then cannot find, a fresh build of S alone would not have built. Each
test must give the result it gave in the build's last run (meson-logs/testlog.json): in an
exercises build, an untouched skeleton's test fails alone as it failed there, and a test that
fails only alone is the defect.

A test in several suites runs only in the ones that hide the most: where another of its suites
hides all that this one hides and more, the stricter run covers it (a suite that hides nothing,
such as cpu, gives the full run's results without running anything).

Usage: suites_alone.py BUILD_DIR [--skip TEST]... [--suite SUITE]...
  --skip   a test left out of every suite's run (one that builds all it needs itself, in a
           scratch tree of its own, and takes minutes: it runs in the full run)
  --suite  check these suites only (default: every suite Meson lists)
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time


def introspect(build: pathlib.Path, what: str):
    done = subprocess.run([shutil.which("meson") or "meson", "introspect", str(build), "--" + what],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def suite_names(test: dict) -> set:
    """Meson lists a test's suites as 'project:suite'."""
    return {s.split(":", 1)[-1] for s in test["suite"]}


def hidden_outputs(build: pathlib.Path, tests: list, targets: list) -> list:
    """The build outputs that TESTS do not declare (by depends or by naming them in their command),
    nor need to build what they declare (a library a declared program links: ninja's inputs)."""
    named = {arg for t in tests for arg in t["cmd"]}
    declared = {d for t in tests for d in t.get("depends", [])}
    wanted = {f for target in targets if target["id"] in declared or any(f in named for f in target["filename"])
              for f in target["filename"]}
    relative = [os.path.relpath(f, build) for f in wanted]
    done = subprocess.run([shutil.which("ninja") or "ninja", "-C", str(build), "-t", "inputs", *relative],
                          capture_output=True, text=True, check=True) if relative else None
    wanted |= {str(build / line) for line in (done.stdout.splitlines() if done else [])}
    return [pathlib.Path(f) for target in targets for f in target["filename"]
            if f not in wanted and pathlib.Path(f).exists()]


def results(log: pathlib.Path) -> dict:
    """Test name -> its result (OK, FAIL, SKIP, ...) in a Meson test log (JSON lines)."""
    found = {}
    for line in log.read_text().splitlines() if log.is_file() else []:
        record = json.loads(line)
        found[record["name"].split(":")[-1]] = record["result"]
    return found


def strictest_suites(suite_hides: dict, test_suites: dict) -> dict:
    """Test name -> the suites it must run in: those of its suites whose hidden outputs no other
    of its suites holds together with more (on a tie, the first by name)."""
    def covered(suite, other):
        return suite_hides[suite] < suite_hides[other] or (suite_hides[suite] == suite_hides[other] and other < suite)
    return {name: {s for s in suites if suite_hides[s] and not any(covered(s, o) for o in suites if o != s)}
            for name, suites in test_suites.items()}


def run_alone(build: pathlib.Path, suite: str, tests: list, hidden: list) -> tuple:
    """(test name -> result, seconds) of SUITE's TESTS, run with the build outputs HIDDEN."""
    aside = build / ".suites-alone-hidden"
    moved = []
    try:
        for path in hidden:
            place = aside / path.relative_to(build)
            place.parent.mkdir(parents=True, exist_ok=True)
            os.rename(path, place)
            moved.append((place, path))
        start = time.monotonic()
        subprocess.run([shutil.which("meson") or "meson", "test", "-C", str(build), "--no-rebuild",
                        "--logbase", "suites-alone-" + suite, *[t["name"] for t in tests]], capture_output=True)
        seconds = time.monotonic() - start
        return results(build / "meson-logs" / f"suites-alone-{suite}.json"), seconds
    finally:
        for place, path in moved:
            os.rename(place, path)
        shutil.rmtree(aside, ignore_errors=True)


def main(argv) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    build, chosen_options = pathlib.Path(argv[0]).resolve(), {"--skip": set(), "--suite": set()}
    rest = argv[1:]
    while rest[:1] and rest[0] in chosen_options and len(rest) > 1:
        chosen_options[rest[0]].add(rest[1])
        rest = rest[2:]
    if rest or not (build / "meson-private").is_dir():
        print(f"suites_alone.py: error: expected BUILD_DIR [--skip TEST]... [--suite SUITE]..., got {argv}",
              file=sys.stderr)
        return 2
    skipped = chosen_options["--skip"]
    tests, targets = introspect(build, "tests"), introspect(build, "targets")
    suites = sorted(chosen_options["--suite"] or {s for t in tests for s in suite_names(t)})
    full_run = results(build / "meson-logs" / "testlog.json")  # the last full run, where there was one
    print("each test's result alone against " + ("the last run of the build (meson-logs/testlog.json)" if full_run
                                                  else "OK or SKIP (no earlier run in this build)"))
    members = {suite: [t for t in tests if suite in suite_names(t) and t["name"] not in skipped] for suite in suites}
    members = {suite: chosen for suite, chosen in members.items() if chosen}
    hides = {suite: hidden_outputs(build, chosen, targets) for suite, chosen in members.items()}
    runs_in = strictest_suites({suite: set(hidden) for suite, hidden in hides.items()},
                               {t["name"]: suite_names(t) & members.keys() for t in tests if t["name"] not in skipped})
    print(f"{'suite':<16} {'tests':>5} {'run':>5} {'hidden':>6} {'seconds':>7}  result")
    failed = []
    for suite, chosen in members.items():
        ran = [t for t in chosen if suite in runs_in[t["name"]]]
        alone, seconds = run_alone(build, suite, ran, hides[suite]) if ran else ({}, 0)
        differ = []
        for t in ran:
            expected = [full_run[t["name"]]] if t["name"] in full_run else ["OK", "SKIP", "EXPECTEDFAIL"]
            if alone.get(t["name"]) not in expected:
                differ.append(f"{t['name']}: {alone.get(t['name'], 'not run')} alone, {' or '.join(expected)} expected")
        print(f"{suite:<16} {len(chosen):>5} {len(ran):>5} {len(hides[suite]):>6} {seconds:>7.0f}  "
              f"{'FAILED' if differ else 'ok'}")
        for line in differ:
            print("    " + line)
        if differ:
            failed.append(suite)
    print("(run: the tests run in this suite; the others run in one of their suites that hides more)")
    print(f"{len(members) - len(failed)} of {len(members)} suites give alone what they give in the whole build"
          + (f"; left out of each: {', '.join(sorted(skipped))}" if skipped else "")
          + (f"; failing: {', '.join(failed)} (a test runs or reads a build output it does not declare: "
             f"meson-logs/suites-alone-SUITE.txt)" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
