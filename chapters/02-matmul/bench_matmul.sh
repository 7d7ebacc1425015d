#!/usr/bin/env bash
# Chapter 02-matmul's benchmark, written as CSV (the lesson's tables and plot come from it):
#   NAME_matmul.csv   matmul_bench: every type and variant, 16 .. 8192, host to host and device
#                     only, with the FP64 FMA rate of the same run (under 2 minutes on an H200)
#   NAME_matmul_pinned.csv   host to host once more at 4096^3 and 8192^3 for gpulib, gpu8 and gpu9,
#                     the caller's arrays page-locked (--pinned-host): pinned copies without overlap
#   NAME_matmul_bandwidth.csv   chapter 00's bandwidth at one matrix of 4096^2 and 8192^2 doubles
#                     (128 and 512 MiB), pageable and pinned: the copies' bound of host to host
#   usage: chapters/02-matmul/bench_matmul.sh BUILD_DIR OUT_DIR [NAME]   e.g. chapters/02-matmul/bench_matmul.sh build /tmp/r h200
# Its Nsight Compute profile is chapters/02-matmul/profile_matmul.sh.
set -euo pipefail
source "$(dirname "$0")/../../tools/require_gpu.sh" "${1:?build directory}"
dir=${1:?build directory}/chapters/02-matmul
out=${2:?output directory}
name=${3:-gpu}
mkdir -p "$out"
"$dir/matmul_bench" --csv > "$out/${name}_matmul.csv"
"$dir/matmul_bench" --types gpulib,gpu8,gpu9 --min-n 4096 --max-n 8192 --square --pinned-host --csv > "$out/${name}_matmul_pinned.csv"
"${1}/chapters/00-device/bandwidth" --min-bytes 134217728 --max-bytes 536870912 --csv > "$out/${name}_matmul_bandwidth.csv"
write_source "$out" "$name"
echo "wrote $out/${name}_matmul.csv"
