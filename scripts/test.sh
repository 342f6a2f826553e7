#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the whole test suite through CTest; then the
# LibTorch-free code under ASan + UBSan and TSan (scripts/sanitize.sh) and each fuzz target
# briefly on its seed corpus (scripts/fuzz.sh). POPPY_NO_SANITIZE=1 skips those two steps.
# Last, the soak test's quick round (scripts/soak.py --quick, about 90 s): kills during train and
# match, damaged run directories, hostile USI and web input. POPPY_NO_SOAK=1 skips it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir "${POPPY_BUILD:-build}" --output-on-failure -j "${POPPY_JOBS:-2}"
if [ "${POPPY_NO_SANITIZE:-0}" != 1 ]; then
  scripts/sanitize.sh
  # The fuzz targets were built in build-asan by sanitize.sh; a fixed seed keeps CI repeatable.
  scripts/fuzz.sh --build build-asan --runs 2000 --seed 1
fi
if [ "${POPPY_NO_SOAK:-0}" != 1 ]; then
  soak_out="$(mktemp -d)"
  scripts/soak.py --quick --poppy "${POPPY_BUILD:-build}/poppy" --out "$soak_out"
  rm -rf "$soak_out"
fi
