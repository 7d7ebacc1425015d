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
