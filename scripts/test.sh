#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the whole test suite through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir "${POPPY_BUILD:-build}" --output-on-failure -j "${POPPY_JOBS:-2}"
