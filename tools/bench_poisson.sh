#!/usr/bin/env bash
# Chapter 03-poisson's measurements, into two CSVs:
#   NAME_sizes.csv    every stage over N (GPU stages 1000 iterations, CPU 100, gpu1 10)
#   NAME_scaling.csv  multi and nccl on 1, 2 and 4 GPUs at N = 16384, 1000 iterations, each
#                     beside gpu2 on one GPU measured in the same run
#   usage: tools/bench_poisson.sh BUILD_DIR OUT_DIR [NAME] [MAX_GPUS]
#   MAX_GPUS: the most GPUs the scaling runs take (default: the GPUs nvidia-smi lists)
set -euo pipefail
source "$(dirname "$0")/require_gpu.sh" "${1:?build directory}"
jacobi="${1:?build directory}/chapters/03-poisson/jacobi"
out=${2:?output directory}
name=${3:-gpu}
visible_gpus() { local n; n=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU') || true; echo "${n:-1}"; }
max_gpus=${4:-$(visible_gpus)}
mkdir -p "$out"
append() {  # run one configuration; keep the header of the first run only
  local file=$1; shift
  if [ -s "$file" ]; then "$jacobi" "$@" --csv | tail -n +2 >> "$file"; else "$jacobi" "$@" --csv > "$file"; fi
}
sizes="$out/${name}_sizes.csv"; scaling="$out/${name}_scaling.csv"
rm -f "$sizes" "$scaling"
for N in 64 128; do append "$sizes" gpu1 $N 10; done
for N in 256 512 1024 2048; do append "$sizes" cpu_omp $N 100; done
for N in 256 512 1024 2048 4096 8192 16384; do
  for stage in $(python3 "$(dirname "$0")/chapters.py" stages 03-poisson gpu --timed); do append "$sizes" "$stage" $N 1000; done
done
for stage in multi nccl; do
  for gpus in 1 2 4; do
    if [ "$gpus" -le "$max_gpus" ]; then append "$scaling" $stage 16384 1000 --parts $gpus; fi
  done
done
write_source "$out" "$name"
echo "wrote $sizes and $scaling"
