#!/usr/bin/env bash
# The README's first command: install what is missing, configure, build, run the heat tour.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/cuda/bin"
bash tools/install_deps.sh
# The venv's meson, as every later command uses it; ninja is the system's in every shell (see
# install_deps.sh: a build made by another ninja would be rebuilt whole).
export PATH="$PWD/.venv/bin:$PATH"
[ -d build ] || meson setup build
meson compile -C build
build/chapters/01-heat/heat3d
