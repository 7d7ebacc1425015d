#!/usr/bin/env bash
# The README's first command: install what is missing, configure, build and run the heat tour
# first (its table within a minute or two), then build the rest of the chapters. The times it
# announces were measured on a 2-core machine without a GPU
# (chapters/00-device/results/nogpu_2core_quickstart.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/cuda/bin"
say() { echo "quickstart: [${SECONDS} s] $*"; }

say "1/3 installing what is missing (about a minute; nothing to do the second time)"
bash tools/install_deps.sh
# The venv's meson, as every later command uses it; ninja is the system's in every shell (see
# install_deps.sh: a build made by another ninja would be rebuilt whole).
export PATH="$PWD/.venv/bin:$PATH"
[ -d build ] || meson setup build > /dev/null

say "2/3 building chapter 01's heat3d and running its tour (about 20 s on 2 cores)"
meson compile -C build chapters/01-heat/heat3d
build/chapters/01-heat/heat3d

say "3/3 building every chapter (about 5 minutes on 2 cores; [n/N] is the progress; stopping here is"
say "    safe: the test command builds what is left)"
meson compile -C build
say "done: the README's test command is next"
