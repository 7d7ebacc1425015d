#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine with the CUDA Toolkit lacks to build and test
# the tutorial: OpenBLAS, GoogleTest and pkg-config from the distribution, and Meson (>= 1.4),
# Ninja and markdown (for the slides) from PyPI into .venv/. Installs nothing already there.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install_deps: nvcc not found: install the CUDA Toolkit (12 or newer) first" >&2
  exit 1
fi

packages=(libopenblas-dev libgtest-dev pkg-config)
python3 -c "import ensurepip, venv" 2>/dev/null || packages+=(python3-venv)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "install_deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check 'meson>=1.4' ninja markdown
echo "install_deps: ready (meson $(.venv/bin/meson --version), $(nvcc --version 2>/dev/null | tail -1 || /usr/local/cuda/bin/nvcc --version | tail -1))"
