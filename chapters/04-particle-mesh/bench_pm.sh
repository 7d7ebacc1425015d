#!/usr/bin/env bash
# Chapter 04-particle-mesh's measurements, into CSVs under OUT_DIR (NAME_*.csv):
#   part2data        every stage at 2^26 particles
#   part2data_sizes  the GPU stages from 2^20 to 2^28 particles
#   transfers        the slides' transfer table at 2^26 particles (4 streams, 16 pieces)
#   pieces           the streamed offload (chapters.list's streamed_pieces) with 1 to 256 pieces
#   force            every stage and axis at 512^3
#   strips           the strip length (of chapters.list's strip_sweep) swept at 256^3, 512^3 and 1024^3
#   force_sizes      the GPU force stages from 128^3 to 1024^3
#   usage: chapters/04-particle-mesh/bench_pm.sh BUILD_DIR OUT_DIR [NAME]
set -euo pipefail
source "$(dirname "$0")/../../tools/require_gpu.sh" "${1:?build directory}"
dir="${1:?build directory}/chapters/04-particle-mesh"
out=${2:?output directory}
name=${3:-gpu}
mkdir -p "$out"
append() {  # append one run's CSV to a file; keep the header of the first run only
  local file=$out/${name}_$1.csv; shift
  if [ -s "$file" ]; then "$@" --csv | tail -n +2 >> "$file"; else "$@" --csv > "$file"; fi
}
# A list's GPU stages, comma-separated, from chapters/chapters.list and the list.
gpu_stages() { python3 "$(dirname "$0")/../../tools/chapters.py" stages 04-particle-mesh gpu --list "$1" | paste -sd, -; }
show() { python3 "$(dirname "$0")/../../tools/chapters.py" show 04-particle-mesh "$1"; }
rm -f "$out/${name}"_{part2data,part2data_sizes,transfers,pieces,force,strips,force_sizes}.csv
append part2data "$dir/part2data"
for np in 1048576 4194304 16777216 67108864 268435456; do
  append part2data_sizes "$dir/part2data" --particles $np --stage "$(gpu_stages part2data)" --cpu-repeats 1
done
append transfers "$dir/part2data" --transfers
for pieces in 1 4 16 64 256; do
  append pieces "$dir/part2data" --transfers --stage "$(show streamed_pieces)" --chunks $pieces --cpu-repeats 1
done
append force "$dir/force"
for N in 256 512 1024; do
  append strips "$dir/force" --size $N --stage "$(show strip_sweep)" --axis x,y --sweep-strips --cpu-repeats 1
done
for N in 128 256 512 1024; do
  append force_sizes "$dir/force" --size $N --stage "$(gpu_stages force)" --cpu-repeats 1
done
write_source "$out" "$name"
echo "wrote $out/${name}_*.csv"
