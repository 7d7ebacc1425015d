# Sourced by the benchmark scripts (chapters/NN-name/*.sh), with the build directory as $1. They
# time GPU stages against ceilings measured on the GPU, so without a usable one they say why and
# exit 77 (skip) before measuring anything.
why=$("${1:?build directory}/chapters/00-device/device_info" 2>&1 >/dev/null) || {
  status=$?
  if [ "$status" -eq 77 ]; then
    echo "$(basename "$0"): benchmarks GPU stages, and there is no GPU: ${why#device_info: }" >&2
  else
    echo "$(basename "$0"): device_info failed (exit $status): $why" >&2
  fi
  exit "$status"
}

# write_source OUT_DIR NAME: OUT_DIR/NAME_source.txt says where the CSVs beside it come from
# (the commit, whether the tree had uncommitted changes, the GPU, the date), so that a results
# file never has to be matched to a commit by memory. TUT_COMMIT, when set, names the commit
# (for a copy of the tree without its .git).
write_source() {
  local commit=${TUT_COMMIT:-$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)}
  if [ -z "${TUT_COMMIT:-}" ] && [ -n "$(git -C "$(dirname "$0")" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    commit="$commit, with uncommitted changes"
  fi
  {
    echo "script: $(realpath --relative-to="$(dirname "$0")/../.." "$0")"  # from the repository root
    echo "commit: $commit"
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  } > "$1/$2_source.txt"
}

# The profile scripts' Nsight Compute: `require_ncu` (ncu on the PATH, else exit 77, skip), then
# `metrics=$(ncu_metrics LIST)`: the metrics of the comma-separated LIST that this ncu knows,
# comma-separated; each one it does not know (another version, another GPU) is said on stderr and
# left out. ncu does not list the launch__ ones, which every version has.
require_ncu() {
  command -v ncu > /dev/null || { echo "$(basename "$0"): needs ncu (Nsight Compute) on the PATH" >&2; exit 77; }
}
ncu_metrics() {
  local known metric metrics=""
  known=$(ncu --query-metrics 2> /dev/null | awk '{print $1}')
  for metric in ${1//,/ }; do
    if [[ $metric == launch__* ]] || grep -qx "${metric%%.*}" <<< "$known"; then metrics+=${metrics:+,}$metric; else echo "ncu has no $metric" >&2; fi
  done
  echo "$metrics"
}
