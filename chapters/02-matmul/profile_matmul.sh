#!/usr/bin/env bash
# Chapter 02-matmul's Nsight Compute profile: one kernel of each GPU type (and of each variant
# matmult_f knows) at N = 4096, run through matmult_f, written as NAME_matmul_ncu.csv (the
# lesson's table: chapters/02-matmul/plot_matmul.py --ncu).
#   usage: chapters/02-matmul/profile_matmul.sh BUILD_DIR OUT_DIR [NAME]   e.g. chapters/02-matmul/profile_matmul.sh build /tmp/r h200
set -euo pipefail
source "$(dirname "$0")/../../tools/require_gpu.sh" "${1:?build directory}"
dir=${1:?build directory}/chapters/02-matmul
out=${2:?output directory}
name=${3:-gpu}
require_ncu
mkdir -p "$out"
# Time and traffic; how busy each unit is (Speed of Light, the FP64 and tensor pipes); what the
# warps wait on (cycles per issued instruction, by reason).
wanted=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum
wanted+=,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
wanted+=,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active
wanted+=,sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active
wanted+=,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
wanted+=,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
wanted+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__inst_executed.sum
for reason in long_scoreboard short_scoreboard mio_throttle lg_throttle math_pipe_throttle barrier wait; do
  wanted+=,smsp__average_warps_issue_stalled_${reason}_per_issue_active.ratio
done
metrics=$(ncu_metrics "$wanted")
# The chapter's GPU types but the untimed one-thread one (chapters/chapters.list), and every
# variant matmult_f knows.
types=$(python3 "$(dirname "$0")/../../tools/chapters.py" stages 02-matmul gpu --timed)
types+=" $("$dir/matmult_f" --help | sed -n 's/^ *or a variant: //p' | tr -d ',')"
for type in $types; do
  echo "# type $type, n 4096"
  MFLOPS_MAX_IT=1 MFLOPS_MIN_T=0 MATMULT_COMPARE=0 ncu --metrics "$metrics" --csv -c 1 \
    "$dir/matmult_f" "$type" 4096 4096 4096 2>&1 | grep '^"'
done > "$out/${name}_matmul_ncu.csv"
echo "wrote $out/${name}_matmul_ncu.csv"
