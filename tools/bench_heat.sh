#!/usr/bin/env bash
# The heat chapter's benchmark: the tour at the seed's 128^3 and at 512^3, 5000 steps each,
# written as CSV (the lesson's tables and plot are made from these files).
#   usage: tools/bench_heat.sh BUILD_DIR OUT_DIR [NAME]   e.g. tools/bench_heat.sh build /tmp/results h200
set -euo pipefail
source "$(dirname "$0")/require_gpu.sh" "${1:?build directory}"
build=${1:?build directory}
out=${2:?output directory}
name=${3:-gpu}
heat="$build/chapters/01-heat/heat3d"
mkdir -p "$out"
"$heat" --size 128 --steps 5000 --repeats 5 --cpu-steps 20 --csv > "$out/${name}_128.csv"
"$heat" --size 512 --steps 5000 --repeats 3 --cpu-steps 4 --csv > "$out/${name}_512.csv"
echo "wrote $out/${name}_128.csv and $out/${name}_512.csv"
