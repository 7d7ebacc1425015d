#!/usr/bin/env python3
"""tools/grading/gaming.py's link check on a made-up grading build: a stage file whose own
build (an OpenMP stage's race check links its file alone) fails on a symbol that another stage's
file of its chapter defines is gaming, named with that file; a symbol no stage defines, a
message without an undefined reference, and a call the stage is allowed are not."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import types

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from grading import gaming, sandbox  # noqa: E402

CPU = "03-poisson/cpu_jacobi.cpp"
OMP = "03-poisson/cpu_omp_rows.cpp"
SOURCES = {CPU: "struct Code { int (*solve)(int); };\nstatic int solve(int n) { return n; }\n"
                "extern const Code poisson_cpu;\nconst Code poisson_cpu{solve};\nint helper(int n) { return n; }\n",
           OMP: "int other(int n) { return n + 1; }\n"}


def main() -> int:
    problems = []
    with tempfile.TemporaryDirectory() as scratch:
        build = pathlib.Path(scratch)
        os.chmod(build, 0o755)  # the sandbox's user reads the objects
        commands = []
        for name, text in SOURCES.items():
            source = build / "submission" / name
            source.parent.mkdir(parents=True, exist_ok=True)
            source.write_text(text)
            obj = f"{name.replace('/', '_')}.o"
            subprocess.run(["c++", "-c", str(source), "-o", str(build / obj)], check=True)
            commands.append({"file": str(source), "output": obj})
        (build / "compile_commands.json").write_text(json.dumps(commands))
        files = list(SOURCES)
        box = sandbox.Sandbox([], build, 1)  # nm reads the objects in it (unconfined where there is no bubblewrap)
        unconfined = sandbox.Sandbox([], build, 1)
        unconfined.bwrap = None  # as on a machine without bubblewrap, wherever this runs

        def check(what, why, allowed, expected):
            for b, how in [(box, ""), (unconfined, " (unconfined)")] if box.active else [(box, " (unconfined)")]:
                got = gaming.borrowed_at_link(build, OMP, why, files, allowed, b)
                print(("ok   " if got == expected else "FAIL ") + f"{what}{how}: {got!r}")
                if got != expected:
                    problems.append(what + how)

        check("a variable of another stage", "does not link: 03-poisson/cpu_omp_rows.cpp:23: undefined reference to `poisson_cpu'",
              {}, f"calls poisson_cpu of {CPU} (its own file does not link without it)")
        check("a function of another stage", "does not link: cpu_omp_rows.cpp:9: undefined reference to `helper(int)'",
              {}, f"calls helper(int) of {CPU} (its own file does not link without it)")
        check("a symbol no stage defines", "does not link: cpu_omp_rows.cpp:9: undefined reference to `nowhere(int)'", {}, "")
        check("a compile error", "does not compile: cpu_omp_rows.cpp:9: error: expected ';'", {}, "")
        check("a call the stage may make", "undefined reference to `poisson_cpu'", {OMP: {CPU}}, "")
        # a name that a demangler given it as an argument would take for a file to read (@FILE):
        # the names reach c++filt on its input, so it comes back as it went
        secret = build / "secret.txt"
        secret.write_text("a solution's text\n")
        names = ["_Z4stepv", "@" + str(secret)]
        spelled = gaming.Isolation.demangled(types.SimpleNamespace(box=box, build=build), names)
        expected = {"_Z4stepv": "step()", names[1]: names[1]}
        print(("ok   " if spelled == expected else "FAIL ") + f"names demangled from c++filt's input: {spelled}")
        if spelled != expected:
            problems.append("demangled")
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
