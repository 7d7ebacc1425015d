#!/usr/bin/env python3
"""tools/stage_frames.py reads a debugger's backtraces right: from main to a launched kernel (its
host stub below __device_stub__ and a template's __wrapper__ is the kernel, the runtime's frames
above the launcher are not counted), to a CPU stage's loop (inlined frames and OpenMP's outlined function counted as the
debugger shows them), main's file taken as the program's; a stack without the stage's file does
not count. Bad input gets one line on stderr and exit 2.

Usage: test_stage_frames.py BUILD_DIR"""
import subprocess
import sys

from expectations import ROOT, expect, finish, refused

sys.path.insert(0, str(ROOT / "tools"))
import chapters  # noqa: E402
import stage_frames  # noqa: E402

# As gdb prints them (set print frame-arguments presence), each after the tool's stop marker.
GPU_STOP = """@@stop
#0  0x00007ffff7e3a0c0 in cudaLaunchKernel () from /usr/local/cuda/lib64/libcudart.so.13
#1  0x0000555555570a11 in cudaLaunchKernel<char> (...) at /usr/local/cuda/include/cuda_runtime.h:216
#2  0x0000555555570a00 in __device_stub__Z4stepILi8EEviPKfPf (...) at /tmp/tmpxft_0001_v2_block.cudafe1.stub.c:14
#3  0x0000555555570a40 in __wrapper__device_stub_step<8> (...) at /tmp/tmpxft_0001_v2_block.cudafe1.stub.c:15
#4  0x0000555555570b20 in (anonymous namespace)::step<8> (...) at ../solutions/01-heat/v2_block.cu:20
#5  0x0000555555570c00 in (anonymous namespace)::launch (...) at ../solutions/01-heat/v2_block.cu:41
#6  steps_of<(anonymous namespace)::launch> (...) at ../chapters/01-heat/heat.h:60
#7  0x00005555555714c7 in run_stage (...) at ../chapters/01-heat/heat_run.cpp:41
#8  0x000055555555ef42 in main (...) at /usr/include/c++/12/bits/stl_vector.h:1255
"""
CPU_STOP = """@@stop
#0  _ZN12_GLOBAL__N_14stepERK8HeatGridfPKfPf._omp_fn.0(void) () at ../solutions/01-heat/v0_omp.cpp:18
#1  0x00007ffff7f4a1c0 in GOMP_parallel () from /lib/x86_64-linux-gnu/libgomp.so.1
#2  (anonymous namespace)::step (...) at ../solutions/01-heat/v0_omp.cpp:14
#3  0x00005555555714c7 in run_stage (...) at ../chapters/01-heat/heat_run.cpp:41
#4  main (...) at ../chapters/01-heat/heat3d.cpp:290
"""
OTHER_STOP = """@@stop
#0  0x00007ffff7e3a0c0 in cudaLaunchKernel () from /usr/local/cuda/lib64/libcudart.so.13
#1  0x0000555555570a00 in __device_stub__Z4copyPKfPf (...) at /tmp/tmpxft_0002_bandwidth.cudafe1.stub.c:9
#2  0x0000555555570b20 in copy (...) at ../common/bandwidth.cu:20
#3  0x000055555555ef42 in main (...) at ../chapters/01-heat/heat3d.cpp:300
"""

stages = {s.name: s for s in chapters.read_stages() if s.family == "heat"}
stacks = stage_frames.stacks(GPU_STOP + CPU_STOP + OTHER_STOP)
expect(f"three stops read (read {len(stacks)})", len(stacks) == 3)

frames, files = stage_frames.path_to_kernel(stacks[0], stages["v2"], "heat3d")
names = [f for f, _ in frames]
expect(f"v2: main > run_stage > steps_of > launch > the kernel step, 5 frames ({names})",
       names == ["(anonymous namespace)::step<8>", "(anonymous namespace)::launch", "steps_of<(anonymous namespace)::launch>",
                 "run_stage", "main"])
expect(f"v2: its files heat3d.cpp, heat_run.cpp, heat.h, v2_block.cu ({sorted(files)})",
       files == {"heat3d.cpp", "heat_run.cpp", "heat.h", "v2_block.cu"})

frames, files = stage_frames.path_to_kernel(stacks[1], stages["v0_omp"], "heat3d")
expect(f"v0_omp: 5 frames, OpenMP's own counted ({[f for f, _ in frames]})",
       [f for f, _ in frames] == ["_ZN12_GLOBAL__N_14stepERK8HeatGridfPKfPf._omp_fn.0", "GOMP_parallel",
                                  "(anonymous namespace)::step", "run_stage", "main"])
expect(f"v0_omp: 3 files ({sorted(files)})", files == {"heat3d.cpp", "heat_run.cpp", "v0_omp.cpp"})

# A stop in a function the region's body calls (an inlined cell function of v0_omp.cpp): the
# body is the kernel, and what it calls is its own, as a GPU kernel's device functions are.
INSIDE_BODY = CPU_STOP.replace("#0  _ZN", "#0  (anonymous namespace)::cell (...) at ../solutions/01-heat/v0_omp.cpp:9\n#1  for_each<..> (...) at ../common/loops.h:5\n#2  _ZN")
frames, files = stage_frames.path_to_kernel(stage_frames.stacks(INSIDE_BODY)[0], stages["v0_omp"], "heat3d")
expect(f"v0_omp, a stop below its region's body: still 5 frames, the body the kernel ({[f for f, _ in frames]})",
       [f for f, _ in frames][0].endswith("._omp_fn.0") and len(frames) == 5)
expect(f"v0_omp, a stop below its region's body: its helpers' files not counted ({sorted(files)})",
       files == {"heat3d.cpp", "heat_run.cpp", "v0_omp.cpp"})

expect("a launch whose stack does not hold the stage's file is not the stage's",
       stage_frames.path_to_kernel(stacks[2], stages["v2"], "heat3d") is None)
v7 = stages["v7"]  # its CALLS line names v4_zfactor.cu, v5_stream.cu and v6_temporal.cu
expect(f"a stage's stop is one on a file its CALLS line names ({v7.calls})",
       stage_frames.path_to_kernel(stage_frames.stacks(GPU_STOP.replace("v2_block.cu", "v4_zfactor.cu"))[0], v7, "heat3d"))
expect("short names: namespaces, template arguments and parameters left out",
       stage_frames.short("tut::time_host<(anonymous namespace)::f(int)::<lambda()>&>") == "tut::time_host<..>")


TOOL = ROOT / "tools" / "stage_frames.py"
refused(TOOL, "not a build directory", str(ROOT / "tools"), names="not a Meson build directory")
refused(TOOL, "an unknown option", "build", "--bogus", names="--bogus")
build = sys.argv[1]  # the build this test runs in
refused(TOOL, "an unknown stage", build, "--stages", "heat:v99", names="heat:v99")
refused(TOOL, "--jobs 0", build, "--jobs", "0", names="--jobs")
help_run = subprocess.run([sys.executable, str(TOOL), "--help"], capture_output=True, text=True)
expect("--help: exit 0, usage on stdout", help_run.returncode == 0 and "debugoptimized" in help_run.stdout)
finish()
