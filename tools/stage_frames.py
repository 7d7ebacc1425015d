#!/usr/bin/env python3
"""How deep each stage's kernel sits below main(), measured with a debugger.

Runs each chapter's programs on a small problem under gdb (or cuda-gdb, where gdb is missing),
one stage at a time, stops at every kernel launch (cudaLaunchKernel, the cooperative and the
extended launches, cuBLAS's dgemm) and, for a CPU stage, at every line of its file, and reads
the stack: the frames from main() to the kernel (main and the kernel included, inlined frames
counted as the debugger shows them) and the source files they sit in. A CPU stage's kernel is
the body of its OpenMP region (omp_fn) where it has one, else its own function. A launch counts for a stage
when the stage's file, or a file its CALLS line names, is on its stack. Needs a build with debug
information:

    meson setup build-debug -Dbuildtype=debugoptimized && ninja -C build-debug
    python3 tools/stage_frames.py build-debug [--stages heat:v1,matmul:gpu8] [--out FILE] [--jobs N]

Prints one row per program and stage: its usual depth (the most common among its launches), its
deepest, and the path of the deepest with its files. GPU stages need a GPU; OpenACC stages are left out. Stages
that share a file (four_steps' ref and cpu0) share their stops.
"""
import collections
import concurrent.futures
import os
import pathlib
import re
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import chapters  # noqa: E402
import plotting  # noqa: E402  (its Parser: a usage error in one line, exit 2)

ROOT = chapters.ROOT
LAUNCHES = ["cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cudaLaunchKernelExC", "cublasDgemm_v2"]
HITS = 100  # stops read per run: the ceilings' launches, the checks, the first (planning) calls, a timed call

# Each chapter's programs on a problem of seconds: (program in the build, arguments, environment).
PROGRAMS = {
    # 48 steps: v7 records a graph of 48, its kernels launched on a capturing stream
    "heat": [("chapters/01-heat/heat3d", "--size 24 --steps 48 --repeats 1 --stage {stage}", {})],
    "matmul": [("chapters/02-matmul/matmult_f", "{stage} 96 80 72", {"MFLOPS_MAX_IT": "1", "MATMULT_COMPARE": "0"}),
               ("chapters/02-matmul/matmul_bench", "--min-n 64 --max-n 64 --square --types {stage}", {})],
    "poisson": [("chapters/03-poisson/jacobi", "{stage} 64 20", {})],
    "part2data": [("chapters/04-particle-mesh/part2data",
                   "--particles 4096 --mesh 16 --repeats 1 --cpu-repeats 1 --stage {stage}", {})],
    "force": [("chapters/04-particle-mesh/force", "--size 16 --repeats 1 --cpu-repeats 1 --stage {stage}", {})],
    "four_steps": [("chapters/05-four-steps/vortex",
                    "--size 64 --steps 2 --check-steps 1 --repeats 1 --stage {stage}", {})],
}

# "#2  0x00005555555714c7 in run_stage (...) at ../chapters/01-heat/heat_run.cpp:41": its function
# (which may hold spaces and parentheses: "(anonymous namespace)::step") and file.
FRAME = re.compile(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(.+?) \((?:\.\.\.)?\)(?: at (\S+):\d+| from \S+)?$")


def gdb_script(stage: chapters.Stage) -> str:
    """The debugger's commands: a breakpoint at each launch (a CPU stage: each line of its file),
    a backtrace at each stop, and the program killed after HITS stops."""
    lines = ["set pagination off", "set confirm off", "set breakpoint pending on",
             "set print frame-arguments presence", "set $stops = 0",
             "break main", "run", "delete 1"]  # from main on, the shared libraries' functions are known
    if stage.side in ("cpu", "mpi"):  # its functions are often inlined: a breakpoint at each line of code
        # (indented: inside a function. A line at file scope may hold no code, and a break there is
        # an error that ends the debugger's script.)
        source = (ROOT / "solutions" / stage.path).read_text().splitlines()
        lines += [f"break {stage.file}:{n}" for n, text in enumerate(source, 1)
                  if text[:1] in (" ", "\t") and text.strip() and not text.lstrip().startswith(("//", "#"))]
    else:
        lines += [f"break {name}" for name in LAUNCHES]
    lines += ["commands 2-$bpnum", "silent", "set $stops = $stops + 1", "echo @@stop\\n", "bt",
              f"if $stops >= {HITS}", "kill", "quit", "end", "continue", "end", "continue", "quit"]
    return "\n".join(lines) + "\n"


def stacks(output: str) -> list:
    """The stacks the debugger printed, each a list of (function, file) from the newest frame."""
    found, current = [], None
    for line in output.splitlines():
        if line.startswith("@@stop"):
            current = []
            found.append(current)
        elif current is not None and line.startswith("#"):
            m = FRAME.match(line.strip())
            if m:
                current.append((m.group(1).removesuffix("(void)"), m.group(2) or ""))
    return found


def short(function: str) -> str:
    """A frame's function without its namespace noise, template arguments and parameters."""
    if "._omp_fn." in function:  # the body GCC outlines from an OpenMP region, by its mangled name
        return "omp_fn"
    function = function.replace("(anonymous namespace)::", "")
    out, depth = [], 0
    for c in function:
        if c in "<(":
            depth += 1
            if depth == 1:
                out.append(c)
        elif c in ">)":
            depth -= 1
            if depth == 0:
                out.append(c)
        elif depth == 0:
            out.append(c)
    return "".join(out).replace("<>", "<..>").replace("<..>()", "<..>")


def in_project(path: str) -> bool:
    parts = pathlib.PurePath(path).parts
    return any(p in ("solutions", "exercises", "chapters", "common") for p in parts) and not path.endswith(".stub.c")


def path_to_kernel(stack: list, stage: chapters.Stage, program: str):
    """(frames, files) from main to the stage's kernel on this stack, or None where the stage's
    file is not on it. The kernel is the launched one (its host stub, under __device_stub__), or
    for a CPU stage the newest frame in its file; inside an OpenMP region, the region's body (the
    function GCC outlines from it, omp_fn), whose calls are its own as a GPU kernel's device
    functions are, which a launch's stack does not show either."""
    names = [f for f, _ in stack]
    own = {stage.file} | {c for c in stage.calls if "." in c}  # its file and the stages' files it calls
    if "main" not in names or not any(pathlib.PurePath(p).name in own for _, p in stack):
        return None
    bottom = names.index("main")
    kernel_file = None
    top = 0
    if stage.side in ("cpu", "mpi"):
        top = next(i for i, (_, p) in enumerate(stack) if pathlib.PurePath(p).name in own)
        top = max((i for i in range(top, bottom) if "._omp_fn." in names[i]), default=top)  # the region's body
        frames = stack[top:bottom + 1]
    else:
        stub = next((i for i, f in enumerate(names) if f.startswith("__device_stub__")), None)
        if stub is not None:  # the kernel's own name, below its stub (and a template's wrapper of it)
            stub += 1
            while stub < bottom and names[stub].startswith("__wrapper__device_stub"):
                stub += 1
            kernel_file = stack[stub][1]
            top = stub + 1
        top = next((i for i in range(top, bottom + 1) if in_project(stack[i][1])), bottom)
        kernel = (names[stub], kernel_file) if stub is not None else (names[0], "")  # else the launch call
        frames = [kernel] + stack[top:bottom + 1]
    # main's own file is the program's (the debugger may name a header inlined where main stops)
    files = {pathlib.PurePath(p).name for f, p in frames if p and in_project(p) and f != "main"} | {program + ".cpp"}
    return frames, files


def measure(build: pathlib.Path, debugger: str, program: str, args: str, env: dict, stage: chapters.Stage):
    if not (build / program).exists():
        return None, f"{program} is not built"
    command = [str(build / program)] + args.format(stage=stage.name).split()
    script = build / f"stage-frames-{stage.family}-{stage.name}-{pathlib.Path(program).name}.gdb"
    script.write_text(gdb_script(stage))
    run = subprocess.run([debugger, "-batch", "-nx", "-x", str(script), "--args"] + command, capture_output=True,
                         text=True, env={**os.environ, **env}, timeout=600)
    script.unlink()
    paths = [p for p in (path_to_kernel(s, stage, pathlib.Path(program).name) for s in stacks(run.stdout)) if p]
    if not paths:
        tail = (run.stdout + run.stderr).strip().splitlines()[-3:]
        return None, "no stop reached the stage's file: " + " | ".join(tail)
    depths = collections.Counter(len(f) for f, _ in paths)
    usual = depths.most_common(1)[0][0]
    usual_files = max(len(files) for f, files in paths if len(f) == usual)
    deepest_frames, deepest_files = max(paths, key=lambda p: (len(p[0]), len(p[1])))
    chain = " > ".join(short(f) for f, _ in reversed(deepest_frames)) + "  [" + ", ".join(sorted(deepest_files)) + "]"
    return (usual, usual_files, len(deepest_frames), len(deepest_files), chain), ""


def main(argv) -> int:
    parser = plotting.Parser(doc=__doc__, prog="stage_frames.py")
    parser.add_argument("build", help="a build directory with debug information (-Dbuildtype=debugoptimized)")
    parser.add_argument("--stages", default="", help="FAMILY:STAGE,... (default every stage but the OpenACC ones)")
    parser.add_argument("--out", help="also write the table to this file")
    parser.add_argument("--jobs", type=int, default=4, help="debugger runs at once (default 4)")
    args = parser.parse_args(argv)
    build = pathlib.Path(args.build)
    if not (build / "build.ninja").exists():
        parser.error(f"{build} is not a Meson build directory")
    debugger = shutil.which("gdb") or shutil.which("cuda-gdb")
    if not debugger:
        parser.error("neither gdb nor cuda-gdb is on the PATH")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    wanted = [w for w in args.stages.split(",") if w]
    known = {f"{s.family}:{s.name}": s for s in chapters.read_stages() if s.side != "acc"}
    for w in wanted:
        if w not in known:
            parser.error(f"no stage {w!r}; stages are FAMILY:NAME, e.g. heat:v1, matmul:gpu8, four_steps:gpu4")
    selected = [known[w] for w in wanted] if wanted else list(known.values())
    jobs = [(program, a, env, s) for s in selected for program, a, env in PROGRAMS[s.family]]
    header = f"{'program':<13} {'stage':<7} {'frames':>6} {'files':>5} {'deepest':>7} {'(files)':>6}  the deepest path, main to kernel [its files]"
    out = open(args.out, "w") if args.out else None
    print(header, flush=True)
    if out:
        out.write(header + "\n")
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:  # each row as soon as it and those above are done
        for (program, _, _, s), (found, why) in zip(jobs, pool.map(lambda j: measure(build, debugger, *j), jobs)):
            name = pathlib.Path(program).name
            if found:
                usual, files, deepest, deepest_files, chain = found
                row = f"{name:<13} {s.name:<7} {usual:>6} {files:>5} {deepest:>7} {deepest_files:>6}  {chain}"
            else:
                row = f"{name:<13} {s.name:<7} {'-':>6} {'-':>5} {'-':>7} {'-':>6}  {why}"
            print(row, flush=True)
            if out:
                out.write(row + "\n")
                out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
