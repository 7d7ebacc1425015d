#!/usr/bin/env bash
# The README's first command: install what is missing, configure, build, run the heat tour.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/cuda/bin"
bash tools/install_deps.sh
[ -d build ] || .venv/bin/meson setup build
.venv/bin/meson compile -C build
build/chapters/01-heat/heat3d
