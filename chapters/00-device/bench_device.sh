#!/usr/bin/env bash
# Chapter 00-device's measurements: properties, bandwidths over sizes, measured ceilings.
#   usage: chapters/00-device/bench_device.sh BUILD_DIR OUT_DIR [NAME]   e.g. chapters/00-device/bench_device.sh build /tmp/r h200
set -euo pipefail
source "$(dirname "$0")/../../tools/require_gpu.sh" "${1:?build directory}"
dir="${1:?build directory}/chapters/00-device"
out=${2:?output directory}
name=${3:-gpu}
mkdir -p "$out"
"$dir/device_info" --csv > "$out/${name}_info.csv"
"$dir/bandwidth" --csv > "$out/${name}_bandwidth.csv"
"$dir/peak" --n 8192 --repeats 5 --csv > "$out/${name}_peak.csv"
write_source "$out" "$name"
echo "wrote $out/${name}_info.csv, ${name}_bandwidth.csv, ${name}_peak.csv"
