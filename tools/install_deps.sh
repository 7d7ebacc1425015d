#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine with the CUDA Toolkit lacks to build and test
# the tutorial: OpenBLAS, GoogleTest, pkg-config, clang and LLVM's OpenMP (for the race checks)
# bubblewrap (the grader's sandbox), Ninja, and optionally GCC's nvptx offloading (OpenACC) and
# Open MPI from the distribution, and Meson (>= 1.4), markdown (for the slides) and matplotlib (for the plots) from
# PyPI into .venv/.
# Installs nothing already there. `source .venv/bin/activate` then puts all of it, and nvcc,
# on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

cuda_bin=/usr/local/cuda/bin
if ! command -v nvcc >/dev/null && [ ! -x "$cuda_bin/nvcc" ]; then
  echo "install_deps: nvcc not found: install the CUDA Toolkit (12 or newer) first" >&2
  exit 1
fi

# Meson finds OpenBLAS and GoogleTest through pkg-config: ask it, not the package manager.
missing=()
command -v pkg-config >/dev/null || missing+=(pkg-config)
if command -v pkg-config >/dev/null; then
  pkg-config --exists openblas || missing+=(libopenblas-dev)
  pkg-config --exists gtest || missing+=(libgtest-dev)
else
  missing+=(libopenblas-dev libgtest-dev)
fi
python3 -c "import ensurepip, venv" 2>/dev/null || missing+=(python3-venv)
# The OpenMP race checks build each OpenMP stage with clang++, ThreadSanitizer and LLVM's Archer.
command -v clang++ >/dev/null || missing+=(clang)
compgen -G "/usr/lib/llvm-*/lib/libarcher.so" >/dev/null || missing+=(libomp-dev)
# tools/grade.py runs a submission's code inside a bubblewrap sandbox.
command -v bwrap >/dev/null || missing+=(bubblewrap)
# Ninja from the system, never from .venv: Meson runs the first ninja on PATH, so with a second
# one in .venv a plain shell and an activated one would each find the build made by the other's
# ninja (another log format) and rebuild all of it.
command -v ninja >/dev/null || missing+=(ninja-build)
# ccache: Meson compiles through it where it is installed, so that compiling the same file with
# the same command again reuses the object (CI's builds share theirs: .ci/run).
command -v ccache >/dev/null || missing+=(ccache)
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
updated=""
apt_install() {  # the package lists are updated once per run, before the first install
  [ -n "$updated" ] || { $sudo apt-get update -qq; updated=yes; }
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}
if [ ${#missing[@]} -gt 0 ]; then
  echo "install_deps: installing ${missing[*]}"
  apt_install "${missing[@]}"
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check 'meson>=1.4' markdown matplotlib
[ ! -e .venv/bin/ninja ] || .venv/bin/python -m pip uninstall -q -y ninja  # from an earlier quick start
if [ -x "$cuda_bin/nvcc" ] && ! grep -q "$cuda_bin" .venv/bin/activate; then
  echo "export PATH=\"\$PATH:$cuda_bin\"  # nvcc, for Meson (added by tools/install_deps.sh)" >> .venv/bin/activate
fi
# Chapter 05's OpenACC stages: GCC offloading to NVIDIA GPUs, the distribution's gcc-N-offload-nvptx
# for GCC N (it brings libgomp's nvptx plugin). Optional: without it those stages' tests skip.
# The check compiles and links a compute region, as the build's does: without the package, GCC
# accepts the flags and fails only where it must offload something.
gcc_major=$(g++ -dumpversion 2>/dev/null | cut -d. -f1 || true)
acc_program='int main() { int n = 0;\n#pragma acc parallel loop reduction(+ : n)\nfor (int i = 0; i < 8; ++i) n += i;\nreturn n != 28; }\n'
if [ -n "$gcc_major" ] && command -v apt-get >/dev/null &&
   ! printf "$acc_program" | PATH="$PATH:$cuda_bin" g++ -x c++ -O2 -fopenacc -foffload=nvptx-none \
       -foffload=-misa=sm_80 -no-pie - -o /dev/null 2>/dev/null; then  # (ptxas checks the PTX)
  echo "install_deps: installing gcc-$gcc_major-offload-nvptx (OpenACC on NVIDIA GPUs)"
  apt_install "gcc-$gcc_major-offload-nvptx" ||
    echo "install_deps: gcc-$gcc_major-offload-nvptx did not install: chapter 05's OpenACC stages will skip" >&2
fi

# Chapter 05's MPI stage (and chapter 03's program over MPI): Open MPI. Optional too.
if ! command -v mpirun >/dev/null && command -v apt-get >/dev/null; then
  echo "install_deps: installing Open MPI (libopenmpi-dev, openmpi-bin)"
  apt_install libopenmpi-dev openmpi-bin ||
    echo "install_deps: Open MPI did not install: the MPI stage will skip" >&2
fi

echo "install_deps: ready (meson $(.venv/bin/meson --version), $(PATH="$PATH:$cuda_bin" nvcc --version | tail -1))"
