#!/usr/bin/env bash
# Runs a test executable with LibTorch's CPU kernels pinned to one instruction set
# (ATEN_CPU_CAPABILITY=default|avx2|avx512), so the learning tests are checked under each kernel
# family this CPU can run, not only the one LibTorch picks here (issue 39: a test passed under one
# and failed under another). LibTorch does not check the variable against the CPU: asked for an
# instruction set the CPU lacks, it stops on an illegal instruction. Such a run is reported as
# skipped (exit 77, CTest's SKIP_RETURN_CODE here), naming the missing CPU flags.
#   with_aten_capability.sh CAPABILITY TEST_EXECUTABLE [ARGS...]
set -euo pipefail
capability=$1
shift
case "$capability" in
  default) needed=() ;;
  avx2) needed=(avx2 fma) ;;
  avx512) needed=(avx512f avx512bw avx512vl avx512dq) ;;
  *) echo "with_aten_capability.sh: unknown capability '$capability' (default, avx2 or avx512)" >&2; exit 2 ;;
esac
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
missing=()
for flag in "${needed[@]}"; do
  [[ "$flags" == *" $flag "* ]] || missing+=("$flag")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "skipped: this CPU lacks ${missing[*]}, which ATEN_CPU_CAPABILITY=$capability needs"
  exit 77
fi
ATEN_CPU_CAPABILITY=$capability exec "$@"
