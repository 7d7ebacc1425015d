#!/usr/bin/env bash
# Chapter 05-four-steps' Nsight Compute profile: every kernel of one time step (the time step's
# two kernels and three Runge-Kutta stages) of each GPU stage (CUDA, and OpenACC where the build
# has it) at 2001^2, run through vortex,
# written as NAME_four_steps_ncu.csv (the lesson's table: chapters/05-four-steps/plot_four_steps.py PREFIX --markdown).
#   usage: chapters/05-four-steps/profile_four_steps.sh BUILD_DIR OUT_DIR [NAME]   e.g. chapters/05-four-steps/profile_four_steps.sh build /tmp/r h200
set -euo pipefail
source "$(dirname "$0")/../../tools/require_gpu.sh" "${1:?build directory}"
vortex=${1:?build directory}/chapters/05-four-steps/vortex
out=${2:?output directory}
name=${3:-gpu}
require_ncu
mkdir -p "$out"
# Time and DRAM traffic; double-precision instructions (flops: add, mul, 2 per fma); how busy
# each unit is; occupancy and registers.
wanted=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum
wanted+=,sm__sass_thread_inst_executed_op_dadd_pred_on.sum,sm__sass_thread_inst_executed_op_dmul_pred_on.sum
wanted+=,sm__sass_thread_inst_executed_op_dfma_pred_on.sum,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active
wanted+=,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
wanted+=,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
wanted+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__inst_executed.sum
metrics=$(ncu_metrics "$wanted")
# Every kernel of the stage's warm-up run, one time step (vortex puts it in its own NVTX range).
# The OpenACC stages' regions too, where this build has them (GCC's offloading).
stages=$(python3 "$(dirname "$0")/../../tools/chapters.py" stages 05-four-steps gpu)
acc=$(python3 "$(dirname "$0")/../../tools/chapters.py" stages 05-four-steps acc)
if "$vortex" --stage "${acc%%$'\n'*}" --size 8 --steps 1 --check-steps 1 --repeats 1 > /dev/null 2>&1; then
  stages+=" $acc"
fi
for stage in $stages; do
  echo "# stage $stage, 2001^2, one time step"
  ncu --metrics "$metrics" --csv --nvtx --nvtx-include "$stage: warm-up/" \
    "$vortex" --stage "$stage" --steps 1 --check-steps 1 --repeats 1 2>&1 | grep '^"'
done > "$out/${name}_four_steps_ncu.csv"
echo "wrote $out/${name}_four_steps_ncu.csv"
