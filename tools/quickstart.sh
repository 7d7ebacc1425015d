#!/usr/bin/env bash
# The README's first command: install what is missing, configure, build, run the heat tour.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/cuda/bin"
bash tools/install_deps.sh
# The venv's meson and ninja, as every later command uses them: a build made with another ninja
# would be rebuilt whole by the first `meson test` from the activated shell.
export PATH="$PWD/.venv/bin:$PATH"
[ -d build ] || meson setup build
meson compile -C build
build/chapters/01-heat/heat3d
