#!/usr/bin/env python3
"""Writes what the compiler makes of the GPU stages: the facts that the lessons quote from
compiled code rather than from a run. No GPU is needed. For each chapter named (default:
01-heat 02-matmul 04-particle-mesh), every .cu file of solutions/NN-name/ is compiled twice,
as tests/meson.build compiles a stage for its idea checks:

  PTX     nvcc -std=c++17 -arch=compute_90 -ptx -I common -I chapters/NN-name
               -DTUT_KERNELS_DIR="solutions" FILE
          per kernel (.entry) of the file: its ld.global instructions (all kinds), of which
          ld.global.nc (the read-only path), and its st.global instructions, counted in the PTX
          text as `grep -c 'ld\\.global\\.'` would count them;
  ptxas   nvcc -std=c++17 -arch=sm_90 -c (the same flags) -Xptxas -v
          per kernel: registers per thread, spill stores and loads, stack frame (bytes);
  SASS    for 02-matmul's gpu7 only: cuobjdump -sass of that object. In its default kernel
          (128x128 tiles, k-tiles of 32, 16x8x16 products, 16-byte copies) the main loop is the
          backward branch whose range holds the DMMA instructions; one pass of it is one k-tile.
          Its instructions are counted by opcode: DMMA (the FP64 tensor-core mma), LDS (shared
          loads), LDGSTS (cp.async copies), integer (IMAD in all its forms, including IMAD.MOV
          and IMAD.U32 used as moves, IADD3, VIADD, LEA, ISETP, LOP3, SEL, SHF, ...), NOP, and
          the rest; and the integer ones before the loop's barrier (BAR.SYNC), between it and
          the first DMMA, and after that.

Each chapter gets chapters/NN-name/results/compiled_facts.txt (the counts, deterministic for a
given tree and nvcc) and compiled_facts_source.txt (the command, commit, nvcc and date).

usage: tools/compiled_facts.py [CHAPTER ...]     (run from anywhere; needs nvcc on PATH or in
       /usr/local/cuda/bin, c++filt, and for 02-matmul cuobjdump with nvdisasm: the CUDA
       Toolkit's, or `pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm` with their bin/
       folder on PATH)
"""
import datetime
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_CHAPTERS = ["01-heat", "02-matmul", "04-particle-mesh"]
KERNELS = "solutions"
FLAGS = ["-std=c++17"]
# The integer-pipe opcodes of sm_90 SASS (the first word of the opcode, before any '.').
INTEGER = {"IMAD", "IADD3", "IADD", "VIADD", "VIADDMNMX", "LEA", "ISETP", "LOP3", "LOP", "SEL", "SHF",
           "SHL", "SHR", "IABS", "IMNMX", "VIMNMX", "PRMT", "FLO", "POPC", "BREV", "IMUL", "BMSK", "SGXT"}
# What the template parameters of a file's kernels are, for the reader of the facts.
PARAMETERS = {
    "v5_stream.cu": "heat_kernel<VEC, ROWS, AHEAD>: cells per thread along x, rows per thread, planes loaded ahead",
    "v6_temporal.cu": "wavefront_kernel<DEPTH, BX, ROWS>: steps fused, the block's shape (0: read from the launch)",
    "v8_resident.cu": "resident_kernel<COLUMN, THREADS, FLAGS>: rows up z per warp, the most threads a block, flags instead of the grid barrier",
    "gpu4_rows_per_thread.cu": "rows_per_thread<ROWS>; rows_at_full_occupancy<4>: 4 rows held to 32 registers (gpu4_4x8)",
    "gpu7_tensor_cores.cu": "tensor_core_tiles<Tiling<BM, BN, BK, WARPS_M, WARPS_N, STAGES, MMA_K>, WIDTH (doubles per cp.async)>",
    "force_gpu2_strips.cu": "strips<STRIP>: cells per strip",
}
GPU7_DEFAULT = "Tiling<128, 128, 32, 4, 2, 3, 16>, 2>"  # gpu7_tensor_cores.cu's Default, with 16-byte copies
GPU7_DMMA_PER_TILE = 2 * 8 * (32 // 16)  # MI x NI products per 16 along k, BK = 32


def tool(name):
    found = shutil.which(name) or shutil.which(name, path="/usr/local/cuda/bin")
    if not found:
        nvcc = shutil.which("nvcc") or shutil.which("nvcc", path="/usr/local/cuda/bin")
        found = nvcc and shutil.which(name, path=str(pathlib.Path(nvcc).parent))
    return found


def run(command):
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"compiled_facts: failed ({done.returncode}): {' '.join(command)}\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def demangle(names):
    if not names or not shutil.which("c++filt"):
        return {n: n for n in names}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out))


def short(name):
    """A demangled kernel name without '(anonymous namespace)::' and without its parameters."""
    name = name.replace("(anonymous namespace)::", "")
    if name.endswith(")"):  # drop the outermost parameter list
        depth = 0
        for at in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[at], 0)
            if depth == 0:
                return name[:at]
    return name


def ptx_counts(ptx):
    """{mangled kernel: (ld.global, ld.global.nc, st.global)}, and the file's totals."""
    entries = list(re.finditer(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$]+)\s*\(", ptx, re.M))
    counts = {}
    for i, entry in enumerate(entries):
        end = entries[i + 1].start() if i + 1 < len(entries) else len(ptx)
        body = ptx[entry.start():end]
        counts[entry.group(1)] = count(body)
    return counts, count(ptx)


def count(text):
    return (len(re.findall(r"\bld\.global\.", text)), len(re.findall(r"\bld\.global\.nc\.", text)),
            len(re.findall(r"\bst\.global\.", text)))


def ptxas_facts(log):
    """{mangled kernel: (registers, spill stores, spill loads, stack frame)} from -Xptxas -v."""
    facts, current, props = {}, None, None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current, props = m.group(1), (0, 0, 0)
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and current:
            props = (int(m.group(2)), int(m.group(3)), int(m.group(1)))
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            facts[current] = (int(m.group(1)),) + props
            current = None
    return facts


def sass_functions(sass):
    """{mangled function: [(address, opcode with its modifiers)]} from cuobjdump -sass."""
    functions, name = {}, None
    for line in sass.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            name = m.group(1)
            functions[name] = []
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m and name:
            words = m.group(2).split()
            if words and words[0].startswith("@"):  # a predicate
                words = words[1:]
            if words:
                functions[name].append((int(m.group(1), 16), words[0], m.group(2)))
    return functions


def main_loop(instructions):
    """The instructions of the backward branch's range that holds the most DMMA."""
    best = []
    for at, (address, opcode, text) in enumerate(instructions):
        m = re.match(r"(?:@!?U?P\w+\s+)?BRA\s+(?:`\(\S+\)\s*)?0x([0-9a-f]+)", text)
        if opcode.startswith("BRA") and m and int(m.group(1), 16) < address:
            target = int(m.group(1), 16)
            body = [i for i in instructions[:at + 1] if i[0] >= target]
            if sum(i[1].startswith("DMMA") for i in body) > sum(i[1].startswith("DMMA") for i in best):
                best = body
    return best


def loop_facts(body):
    kinds = {"DMMA": 0, "LDS": 0, "LDGSTS": 0, "integer": 0, "NOP": 0, "other": 0}
    moves = 0
    integer_at = {"before the barrier": 0, "between the barrier and the first DMMA": 0, "after the first DMMA": 0}
    barrier_seen = dmma_seen = False
    for _, opcode, text in body:
        base = opcode.split(".")[0]
        kind = base if base in ("DMMA", "LDS", "LDGSTS", "NOP") else "integer" if base in INTEGER else "other"
        kinds[kind] += 1
        if kind == "integer" and (opcode.startswith("IMAD.MOV") or re.search(r"IMAD\.U32 \S+, RZ, RZ,", text)):
            moves += 1
        barrier_seen |= base == "BAR"
        if kind == "DMMA":
            dmma_seen = True
        if kind == "integer":
            integer_at[list(integer_at)[0 if not barrier_seen else 1 if not dmma_seen else 2]] += 1
    return kinds, moves, integer_at


def chapter_facts(chapter, work, cuobjdump):
    sources = sorted((ROOT / KERNELS / chapter).glob("*.cu"))
    include = ["-I", "common", "-I", f"chapters/{chapter}", f'-DTUT_KERNELS_DIR="{KERNELS}"']
    lines = [f"# What nvcc makes of the GPU stages of {KERNELS}/{chapter}/ (tools/compiled_facts.py; the",
             "# commands, the nvcc and the commit are in compiled_facts_source.txt beside this file).",
             "# PTX: compute_90, per kernel; ld = ld.global of any kind, nc = of which ld.global.nc,",
             "# st = st.global; a file's total also counts loads in device functions left uninlined.",
             "# ptxas: sm_90 (-Xptxas -v), per kernel; spills and stack in bytes per thread.", ""]
    for source in sources:
        rel = source.relative_to(ROOT).as_posix()
        ptx_file, obj = work / (source.stem + ".ptx"), work / (source.stem + ".o")
        run(["nvcc", *FLAGS, "-arch=compute_90", "-ptx", *include, rel, "-o", str(ptx_file)])
        log = run(["nvcc", *FLAGS, "-arch=sm_90", "-c", "-Xptxas", "-v", *include, rel, "-o", str(obj)])
        per_kernel, total = ptx_counts(ptx_file.read_text())
        regs = ptxas_facts(log)
        names = demangle(sorted(set(per_kernel) | set(regs)))
        lines.append(f"== {rel}: {len(per_kernel)} kernel(s); PTX total ld {total[0]}, nc {total[1]}, st {total[2]}")
        if source.name in PARAMETERS:
            lines.append(f"   ({PARAMETERS[source.name]})")
        if names:
            lines.append(f"   {'ld':>4} {'nc':>4} {'st':>4} {'regs':>5} {'spill st':>8} {'spill ld':>8} {'stack':>5}  kernel")
        natural = lambda n: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", short(names[n]))]
        for mangled in sorted(names, key=natural):
            ld, nc, st = per_kernel.get(mangled, ("-", "-", "-"))
            r, ss, sl, sf = regs.get(mangled, ("-", "-", "-", "-"))
            lines.append(f"   {ld:>4} {nc:>4} {st:>4} {r:>5} {ss:>8} {sl:>8} {sf:>5}  {short(names[mangled])}")
        if chapter == "02-matmul" and source.name == "gpu7_tensor_cores.cu":
            lines += gpu7_sass(obj, cuobjdump)
        lines.append("")
    return "\n".join(lines)


def gpu7_sass(obj, cuobjdump):
    functions = sass_functions(run([cuobjdump, "-sass", str(obj)]))
    names = demangle(list(functions))
    chosen = [m for m in functions if short(names[m]).endswith(GPU7_DEFAULT)]
    if len(chosen) != 1:
        sys.exit(f"compiled_facts: expected one gpu7 kernel ending in {GPU7_DEFAULT}, found {len(chosen)}")
    body = main_loop(functions[chosen[0]])
    kinds, moves, integer_at = loop_facts(body)
    if kinds["DMMA"] != GPU7_DMMA_PER_TILE:
        sys.exit(f"compiled_facts: gpu7's main loop has {kinds['DMMA']} DMMA, not one k-tile's {GPU7_DMMA_PER_TILE}")
    return [f"   SASS (sm_90, cuobjdump -sass) of {short(names[chosen[0]])}, the default kernel:",
            f"   its main loop, SASS addresses {body[0][0]:#06x}..{body[-1][0]:#06x}, is one k-tile (32 along k,"
            f" {GPU7_DMMA_PER_TILE} DMMA = 2 x 8 products x 2 steps of 16):",
            f"     {len(body)} instructions: {kinds['DMMA']} DMMA, {kinds['LDS']} LDS, {kinds['LDGSTS']} LDGSTS,"
            f" {kinds['integer']} integer ({moves} of them IMAD.MOV/IMAD.U32 moves), {kinds['NOP']} NOP,"
            f" {kinds['other']} other",
            "     of the integer ones, in program order: " + ", ".join(f"{n} {where}" for where, n in integer_at.items())]


def version(program):
    text = run([program, "--version"]).strip().splitlines()
    return next((line for line in text if "release" in line), text[-1] if text else "unknown")


def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    for arg in argv:
        if arg.startswith("-"):
            print(f"compiled_facts: unknown option {arg} (see --help)", file=sys.stderr)
            return 2
        if not (ROOT / KERNELS / arg).is_dir() or not (ROOT / "chapters" / arg).is_dir():
            print(f"compiled_facts: no chapter {arg} (one of the folders of chapters/, such as 01-heat)", file=sys.stderr)
            return 2
    chapters = argv or DEFAULT_CHAPTERS
    if not shutil.which("nvcc"):
        nvcc_dir = "/usr/local/cuda/bin"
        if not shutil.which("nvcc", path=nvcc_dir):
            sys.exit("compiled_facts: no nvcc on PATH or in /usr/local/cuda/bin")
        os.environ["PATH"] = nvcc_dir + os.pathsep + os.environ["PATH"]
    cuobjdump = tool("cuobjdump")
    if "02-matmul" in chapters and not (cuobjdump and tool("nvdisasm")):
        sys.exit("compiled_facts: 02-matmul needs cuobjdump and nvdisasm (the CUDA Toolkit's, or "
                 "`pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm` with their bin/ folder on PATH)")
    if cuobjdump:
        os.environ["PATH"] = str(pathlib.Path(tool("nvdisasm") or cuobjdump).parent) + os.pathsep + os.environ["PATH"]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as work:
        for chapter in chapters:
            changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--",
                                      f"{KERNELS}/{chapter}/*.cu", f"chapters/{chapter}/*.h", "common/*.h", "common/*.cuh"],
                                     cwd=ROOT, capture_output=True, text=True).stdout.strip()
            out = ROOT / "chapters" / chapter / "results"
            out.mkdir(exist_ok=True)
            (out / "compiled_facts.txt").write_text(chapter_facts(chapter, pathlib.Path(work), cuobjdump))
            (out / "compiled_facts_source.txt").write_text("\n".join([
                "script: tools/compiled_facts.py " + chapter,
                "PTX: nvcc -std=c++17 -arch=compute_90 -ptx -I common -I chapters/" + chapter +
                f' -DTUT_KERNELS_DIR="{KERNELS}" FILE (as tests/meson.build builds the idea checks)',
                "ptxas: nvcc -std=c++17 -arch=sm_90 -c -Xptxas -v, same flags" +
                ("; SASS: cuobjdump -sass of that object" if chapter == "02-matmul" else ""),
                "nvcc: " + version("nvcc"),
                *(["cuobjdump: " + version(cuobjdump)] if chapter == "02-matmul" else []),
                "commit: " + (commit or "unknown") + (", with uncommitted changes to the files compiled" if changed else ""),
                "date: " + datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"), ""]))
            print(f"wrote {out.relative_to(ROOT)}/compiled_facts.txt and compiled_facts_source.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
