#!/usr/bin/env bash
# Block-shape sweep: the stages of chapters.list's block_shapes (v1's kernel with any block, and
# v4) at 512^3, 1000 steps, over a range of shapes, into one CSV. Shows how much of v1 -> v2 is
# the shape alone.
#   usage: chapters/01-heat/sweep_heat_blocks.sh BUILD_DIR OUT.csv
set -euo pipefail
source "$(dirname "$0")/../../tools/require_gpu.sh" "${1:?build directory}"
heat="${1:?build directory}/chapters/01-heat/heat3d"
out=${2:?output csv}
shapes="32x1x1 64x1x1 128x1x1 256x1x1 512x1x1 1024x1x1 32x4x1 32x8x1 32x16x1 64x2x1 64x4x1 64x8x1 64x16x1 128x2x1 128x4x1 128x8x1 256x2x1 256x4x1"
first=1
for shape in $shapes; do
  "$heat" --size 512 --steps 1000 --repeats 3 --stage "$(python3 "$(dirname "$0")/../../tools/chapters.py" show 01-heat block_shapes)" --block "$shape" --csv > "$out.part"
  if [ $first = 1 ]; then cat "$out.part" > "$out"; first=0; else tail -n +2 "$out.part" >> "$out"; fi
done
rm -f "$out.part"
echo "wrote $out"
