# Sourced by the benchmark scripts, with the build directory as $1. They time GPU stages
# against ceilings measured on the GPU, so without a usable one they say why and exit 77
# (skip) before measuring anything.
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
    echo "script: tools/$(basename "$0")"
    echo "commit: $commit"
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  } > "$1/$2_source.txt"
}
