#!/usr/bin/env bash
# The heat chapter's benchmark, written as CSV (the lesson's tables and plot are made from these):
#   NAME_128.csv, NAME_512.csv     the tour at the seed's 128^3 and at 512^3, 5000 steps each
#   NAME_512_sweep.csv             v5's width, rows and loads ahead, v6's fusion depth, over block shapes
#   NAME_128_alternatives.csv      what each way out of launch overhead gives on 128^3
#   NAME_128_v8_sweep.csv          v8's cells per thread and its barrier, at 128^3
#   NAME_on_chip_sizes.csv         v4, v7 and v8 from 64^3 to 160^3 (where v8 stops fitting on chip)
#   NAME_sizes.csv                 v4 to v8 from 64^3 to 512^3 and on the tests' non-cubic shapes: where
#                                  each later stage stands against v5
#   NAME_ncu_512.csv, NAME_ncu_128.csv   Nsight Compute, every launch of each GPU stage over 24
#                                  steps at 512^3, and of v4, v7, v8 at 128^3 (if ncu is there)
#   usage: chapters/01-heat/bench_heat.sh BUILD_DIR OUT_DIR [NAME]   e.g. chapters/01-heat/bench_heat.sh build /tmp/results h200
set -euo pipefail
source "$(dirname "$0")/../../tools/require_gpu.sh" "${1:?build directory}"
build=${1:?build directory}
out=${2:?output directory}
name=${3:-gpu}
heat="$build/chapters/01-heat/heat3d"
show() { python3 "$(dirname "$0")/../../tools/chapters.py" show 01-heat "$1"; }  # a selection of chapters.list
mkdir -p "$out"
"$heat" --size 128 --steps 5000 --repeats 5 --cpu-steps 20 --csv > "$out/${name}_128.csv"
"$heat" --size 512 --steps 5000 --repeats 3 --cpu-steps 4 --csv > "$out/${name}_512.csv"
"$heat" --size 128 --steps 5000 --repeats 5 --csv --stage "$(show launch_overhead)" \
  > "$out/${name}_128_alternatives.csv"
"$heat" --size 128 --steps 5000 --repeats 5 --csv --stage "$(show v8_variants)" > "$out/${name}_128_v8_sweep.csv"
for n in 64 96 128 130 160; do
  "$heat" --size "$n" --steps 5000 --repeats 5 --csv --stage v4,v7,v8 | { [ "$n" = 64 ] && cat || tail -n +2; }
done > "$out/${name}_on_chip_sizes.csv"

# Steps enough for about 10 ms or more a run at every shape.
for shape in 64 96 128 160 192 256 320 384 448 512 "200 100 20" "1100 1100 4" "1024 256 256" "256 256 1024" \
  "768 768 128"; do
  set -- $shape
  cells=$(( $1 * ${2:-$1} * ${3:-$1} ))
  steps=$(( cells <= 8000000 ? 3000 : (cells <= 40000000 ? 1000 : 400) ))
  "$heat" --nx "$1" --ny "${2:-$1}" --nz "${3:-$1}" --steps "$steps" --repeats 3 --csv --stage v4,v5,v6,v7,v8 \
    | { [ "$1" = 64 ] && cat || tail -n +2; }
done > "$out/${name}_sizes.csv"

sweep="$out/${name}_512_sweep.csv"
rm -f "$sweep"
for shape in 32x4x1 32x8x1 64x2x1 64x4x1 128x2x1; do
  "$heat" --size 512 --steps 500 --repeats 3 --stage "$(show v5_variants)" \
    --block "$shape" --csv
done > "$sweep.part"
for shape in 64x4x1 128x2x1 32x8x1 256x1x1; do  # tiles of 2048 cells: 128 of them cover 512 x 512
  "$heat" --size 512 --steps 500 --repeats 3 --stage "$(show v6_variants)" --block "$shape" --csv | tail -n +2
done >> "$sweep.part"
awk 'NR == 1 || !/^problem,/' "$sweep.part" > "$sweep" && rm "$sweep.part"

if command -v ncu > /dev/null; then
  # Every launch of a run of 24 steps (a stage may fuse several steps into one launch; 24 is
  # a multiple of the depths swept), summed per stage by plot_heat.py --ncu.
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sector_hit_rate.pct
  metrics+=,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active
  metrics+=,launch__registers_per_thread,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
  metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed
  metrics+=,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
  profile() {  # SIZE STAGE...
    local size=$1 stage
    shift
    for stage in "$@"; do
      echo "# stage $stage, steps 24"
      ncu --metrics "$metrics" --csv -k 'regex:heat_kernel|wavefront_kernel|resident_kernel' \
        "$heat" --check --size "$size" --steps 24 --stage "$stage" 2>&1 | grep '^"'
    done
  }
  profile 512 $(python3 "$(dirname "$0")/../../tools/chapters.py" stages 01-heat gpu) > "$out/${name}_ncu_512.csv"
  profile 128 v4 v7 v8 > "$out/${name}_ncu_128.csv"
fi
write_source "$out" "$name"
echo "wrote the heat CSVs of $name to $out"
