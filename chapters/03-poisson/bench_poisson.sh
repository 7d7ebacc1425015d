#!/usr/bin/env bash
# Chapter 03-poisson's measurements, into three CSVs:
#   NAME_sizes.csv    every stage over N (GPU stages 1000 iterations, CPU 100, the untimed
#                     one-thread stage 10)
#   NAME_depths.csv   gpu4 and gpu5 at every depth (iterations fused: 2, 4, 8, 16) at N = 256,
#                     512, 1024, 2048 and 8192, 1000 iterations
#   NAME_scaling.csv  the multi-GPU stages on 1, 2 and 4 GPUs at N = 16384, 1000 iterations, each
#                     beside the one-GPU stage that jacobi runs with them, measured in the same run
#   usage: chapters/03-poisson/bench_poisson.sh BUILD_DIR OUT_DIR [NAME] [MAX_GPUS]
#   MAX_GPUS: the most GPUs the scaling runs take (default: the GPUs nvidia-smi lists)
set -euo pipefail
source "$(dirname "$0")/../../tools/require_gpu.sh" "${1:?build directory}"
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
sizes="$out/${name}_sizes.csv"; depths="$out/${name}_depths.csv"; scaling="$out/${name}_scaling.csv"
rm -f "$sizes" "$depths" "$scaling"
stages() { python3 "$(dirname "$0")/../../tools/chapters.py" stages 03-poisson "$@"; }  # from chapters.list
for stage in $(stages gpu --untimed); do
  for N in 64 128; do append "$sizes" "$stage" $N 10; done
done
for stage in $(stages cpu); do
  for N in 256 512 1024 2048; do append "$sizes" "$stage" $N 100; done
done
for N in 256 512 1024 2048 4096 8192 16384; do
  for stage in $(stages gpu --timed); do append "$sizes" "$stage" $N 1000; done
done
for N in 256 512 1024 2048 8192; do
  for stage in gpu4 gpu5; do
    for depth in 2 4 8 16; do append "$depths" "$stage" $N 1000 --depth $depth; done
  done
done
for stage in $(stages multigpu); do
  for gpus in 1 2 4; do
    if [ "$gpus" -le "$max_gpus" ]; then append "$scaling" $stage 16384 1000 --parts $gpus; fi
  done
done
write_source "$out" "$name"
echo "wrote $sizes, $depths and $scaling"
