#!/usr/bin/env bash
# Chapter 05-four-steps' measurements: every stage on the ONERA case, 2001^2 cells, 100 time
# steps (ref, on one core, over 10: its rate is per step), into NAME_four_steps.csv.
#   usage: chapters/05-four-steps/bench_four_steps.sh BUILD_DIR OUT_DIR [NAME]
set -euo pipefail
source "$(dirname "$0")/../../tools/require_gpu.sh" "${1:?build directory}"
vortex="${1:?build directory}/chapters/05-four-steps/vortex"
out=${2:?output directory}
name=${3:-gpu}
mkdir -p "$out"
"$vortex" --size 2001 --steps 100 --ref-steps 10 --repeats 5 --cpu-repeats 3 --csv > "$out/${name}_four_steps.csv"
write_source "$out" "$name"
echo "wrote $out/${name}_four_steps.csv"
