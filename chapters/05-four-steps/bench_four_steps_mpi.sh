#!/usr/bin/env bash
# Chapter 05-four-steps' MPI stage against OpenMP alone, on this machine's cores: the last CPU
# stage (cpu4) with every core as threads of one process (vortex), then the MPI stage (cpu5,
# vortex_mpi) with the cores split among P processes of
# C / P threads each (vortex_mpi under mpirun, each process bound to its own cores), for P = 1,
# 2, 4, ... up to the cores. 2001^2 cells; STEPS time steps (default 100). Writes
# NAME_four_steps_mpi.csv (the MPI rows) and NAME_four_steps_openmp.csv (OpenMP: threads free, bound).
#   usage: chapters/05-four-steps/bench_four_steps_mpi.sh BUILD_DIR OUT_DIR [NAME [STEPS]]
set -euo pipefail
build=${1:?build directory}
out=${2:?output directory}
name=${3:-cpu}
steps=${4:-100}
vortex_mpi="$build/chapters/05-four-steps/vortex_mpi"
if [ ! -x "$vortex_mpi" ]; then
  echo "bench_four_steps_mpi.sh: $vortex_mpi was not built: the build found no MPI (apt-get install libopenmpi-dev openmpi-bin, then meson setup --reconfigure $build)" >&2
  exit 77
fi
cores=$(nproc)
openmp=$(python3 "$(dirname "$0")/../../tools/chapters.py" stages 05-four-steps cpu | tail -n 1)  # the best OpenMP stage
mkdir -p "$out"
# It runs twice: its threads where the system puts them, then bound one to a core, as mpirun binds
# each process to its cores (so that binding alone is not mistaken for what MPI buys).
OMP_NUM_THREADS=$cores "$build/chapters/05-four-steps/vortex" --stage "$openmp" --steps "$steps" --cpu-repeats 3 --csv \
  > "$out/${name}_four_steps_openmp.csv"
OMP_NUM_THREADS=$cores OMP_PROC_BIND=close OMP_PLACES=cores "$build/chapters/05-four-steps/vortex" --stage "$openmp" \
  --steps "$steps" --cpu-repeats 3 --csv | tail -n +2 >> "$out/${name}_four_steps_openmp.csv"
csv="$out/${name}_four_steps_mpi.csv"
rm -f "$csv"
for ((processes = 1; processes <= cores; processes *= 2)); do
  threads=$((cores / processes))
  mpirun --allow-run-as-root -np "$processes" --map-by "slot:PE=$threads" --bind-to core -x OMP_NUM_THREADS=$threads \
    "$vortex_mpi" --steps "$steps" --repeats 3 --csv > "$out/run.csv"
  if [ -f "$csv" ]; then tail -n +2 "$out/run.csv" >> "$csv"; else cp "$out/run.csv" "$csv"; fi
done
rm -f "$out/run.csv"
echo "wrote $csv and $out/${name}_four_steps_openmp.csv ($cores cores)"
