#!/usr/bin/env bash
# Chapter 03-poisson's Nsight Compute profile: one kernel of gpu3, gpu4 and gpu5 at N = 1024
# (gpu4 in tiles, gpu5 with the whole field held in registers), 2048 and 8192 (gpu4 in strips,
# gpu5 in patches) (20 iterations each run: a single iteration for gpu3, a pass of the default
# depth for gpu4, the whole persistent launch for gpu5), written as NAME_poisson_ncu.csv, each
# kernel after a line "# stage S, N n, iterations k" (the iterations that kernel did, for bytes
# per update).
#   usage: chapters/03-poisson/profile_poisson.sh BUILD_DIR OUT_DIR [NAME]   e.g. chapters/03-poisson/profile_poisson.sh build /tmp/r h100
set -euo pipefail
source "$(dirname "$0")/../../tools/require_gpu.sh" "${1:?build directory}"
jacobi=${1:?build directory}/chapters/03-poisson/jacobi
out=${2:?output directory}
name=${3:-gpu}
require_ncu
mkdir -p "$out"
wanted=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum
wanted+=,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
wanted+=,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
wanted+=,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active
wanted+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__inst_executed.sum
for reason in long_scoreboard short_scoreboard mio_throttle lg_throttle math_pipe_throttle wait; do
  wanted+=,smsp__average_warps_issue_stalled_${reason}_per_issue_active.ratio
done
metrics=$(ncu_metrics "$wanted")
# stage, kernel name, launches to skip (jacobi's warm-up of 10 iterations first), iterations in
# the kernel, and jacobi's options
profile() {
  echo "# stage $1, N $3, iterations $5"
  ncu --metrics "$metrics" --csv -k "regex:$2" -s "$4" -c 1 "$jacobi" "$1" "$3" 20 "${@:6}" 2>&1 | grep '^"'
}
for N in 1024 2048 8192; do
  profile gpu3 point_per_thread "$N" 12 1
  if [ "$N" -le 1024 ]; then
    profile gpu4 tile_pass "$N" 4 4 --depth 4   # warm-up: passes of 4, 4, 1, 1; then the first of 4
  else
    profile gpu4 strip_pass "$N" 3 8 --depth 8  # warm-up: passes of 8, 1, 1; then the first of 8
  fi
  profile gpu5 held_in_patches "$N" 1 20  # warm-up: one launch; then all 20 iterations
done > "$out/${name}_poisson_ncu.csv"
echo "wrote $out/${name}_poisson_ncu.csv"
